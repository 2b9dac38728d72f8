package fuzz

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gasplab/gasp/pkg/infile"
	"github.com/gasplab/gasp/pkg/outdir"
)

// A Result is the coverage report of one seed method on one target, read
// from DIR/<target>/<method>/coverage.json (see LoadResults).
type Result struct {
	// Method is the directory name: a sampler with its step count as a -kN
	// suffix ("mcmc-priority-k10", "asap-k10"), "gcd", or "grammarinator"
	// (the grammar baseline).
	Method string
	Base   string // Method without its -kN suffix
	K      int    // N of the -kN suffix; 0 if there is none
	Report
}

// kSuffix splits a method directory's name; (?s): a name may hold any
// byte but '/'.
var kSuffix = regexp.MustCompile(`(?s)^(.*)-k([0-9]+)$`)

// maxK bounds the -kN suffix of a method directory: no run takes more
// steps.
const maxK = 1_000_000

// methodRank orders methods as the paper's tables do; others follow by name.
var methodRank = map[string]int{"gcd": 0, "asap": 1, "grammarinator": 2,
	"mcmc-uniform": 3, "mcmc-priority": 4, "mcmc-restart": 5}

// LoadResults reads the coverage reports of every method of target under
// dir (dir/<target>/<method>/coverage.json), ordered as in the paper's
// tables: GCD, ASAp, the grammar baseline, then MCMC-Uniform, -Priority and
// -Restart, each by increasing k.
func LoadResults(dir, target string) ([]Result, error) {
	files, err := filepath.Glob(filepath.Join(dir, target, "*", "coverage.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no */coverage.json", filepath.Join(dir, target))
	}
	var res []Result
	seen := map[methodK]string{} // the file of each method and k
	for _, f := range files {
		data, err := readLimited(f, 256<<20)
		if err != nil {
			return nil, err
		}
		r := Result{Method: filepath.Base(filepath.Dir(f))}
		if err := json.Unmarshal(data, &r.Report); err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		if r.Target != target {
			return nil, fmt.Errorf("%s: a report of target %q, not %q", f, r.Target, target)
		}
		if len(r.OverTime) == 0 {
			return nil, fmt.Errorf("%s: no over_time points", f)
		}
		if err := r.checkPercents(); err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		if len(r.TrialReport) != r.Trials {
			return nil, fmt.Errorf("%s: trials is %d but trial_results holds %d", f, r.Trials, len(r.TrialReport))
		}
		r.Base = r.Method
		if m := kSuffix.FindStringSubmatch(r.Method); m != nil {
			r.Base = m[1]
			if r.K, err = strconv.Atoi(m[2]); err != nil || r.K > maxK {
				return nil, fmt.Errorf("%s: step count k = %s of method %q is out of range [0, %d]", f, m[2], r.Method, maxK)
			}
		}
		if g, ok := seen[methodK{r.Base, r.K}]; ok {
			return nil, fmt.Errorf("%s and %s: two results of one method and k (%s, k = %d); keep one", g, f, r.Base, r.K)
		}
		seen[methodK{r.Base, r.K}] = f
		res = append(res, r)
	}
	sort.Slice(res, func(i, j int) bool {
		a, b := res[i], res[j]
		ra, oka := methodRank[a.Base]
		rb, okb := methodRank[b.Base]
		switch {
		case oka != okb:
			return oka
		case ra != rb:
			return ra < rb
		case a.Base != b.Base:
			return a.Base < b.Base
		}
		return a.K < b.K
	})
	return res, nil
}

type methodK struct {
	base string
	k    int
}

// checkPercents refuses a report whose coverage, final or over time, or
// interval bound is not a percentage.
func (r *Report) checkPercents() error {
	if err := r.Point.checkPercents(); err != nil {
		return err
	}
	for i, p := range r.OverTime {
		if err := p.checkPercents(); err != nil {
			return fmt.Errorf("over_time[%d]: %v", i, err)
		}
	}
	return nil
}

func (p Point) checkPercents() error {
	for _, f := range []struct {
		name string
		v    []float64
	}{
		{"branch_pct", []float64{p.BranchPct}}, {"line_pct", []float64{p.LinePct}}, {"function_pct", []float64{p.FunctionPct}},
		{"branch_ci", p.BranchCI[:]}, {"line_ci", p.LineCI[:]}, {"function_ci", p.FunctionCI[:]},
	} {
		for _, v := range f.v {
			if !(v >= 0 && v <= 100) {
				return fmt.Errorf("%s %g is outside [0, 100]", f.name, v)
			}
		}
	}
	return nil
}

// DeltaVsGCD returns the relative gain in branch coverage of r over the
// GCD result in rs, in percent, as in the paper's tables; NaN if rs has no
// GCD result.
func DeltaVsGCD(rs []Result, r Result) float64 {
	for _, g := range rs {
		if g.Method == "gcd" && g.BranchPct > 0 {
			return 100 * (r.BranchPct - g.BranchPct) / g.BranchPct
		}
	}
	return math.NaN()
}

// label is the display name of a method.
func label(r Result) string {
	names := map[string]string{"gcd": "GCD", "asap": "ASAp", "grammarinator": "Grammarinator-style",
		"mcmc-uniform": "MCMC-Uniform", "mcmc-priority": "MCMC-Priority", "mcmc-restart": "MCMC-Restart"}
	n, ok := names[r.Base]
	if !ok {
		n = r.Base
	}
	return n
}

// minIntervalTrials is the fewest trials an interval is drawn from: a
// bootstrap over two trials is their min–max, not a 95 % interval.
const minIntervalTrials = 3

// noInterval is what a table or figure says instead of an interval over
// fewer than minIntervalTrials trials.
const noInterval = "n < 3: no interval"

// alpha is the significance level the tables mark p-values at.
const alpha = 0.05

// A VsGCD compares a result's final branch coverage over its trials with
// GCD's: the two-sided Mann–Whitney U test and the Vargha–Delaney Â12
// (the probability that a trial of the method ends above one of GCD's).
type VsGCD struct {
	OK   bool // false without a GCD result, or for GCD itself
	A12  float64
	Test MannWhitney
}

// CompareGCD compares r with the GCD result of rs (see VsGCD).
func CompareGCD(rs []Result, r Result) VsGCD {
	if r.Method == "gcd" {
		return VsGCD{}
	}
	for _, g := range rs {
		if g.Method != "gcd" {
			continue
		}
		x, y := r.finalBranch(), g.finalBranch()
		test, err := MannWhitneyU(x, y)
		if err != nil { // no trials: LoadResults refuses NaN coverage
			return VsGCD{}
		}
		return VsGCD{OK: true, A12: VarghaDelaneyA12(x, y), Test: test}
	}
	return VsGCD{}
}

// finalBranch returns the final branch coverage of each trial.
func (r Result) finalBranch() []float64 {
	xs := make([]float64, len(r.TrialReport))
	for i, tr := range r.TrialReport {
		xs[i] = tr.BranchPct
	}
	return xs
}

// Markdown writes the coverage table of one target's results: per method
// and k, the seeds and trials, branch, function and line coverage (mean
// over trials with its bootstrap 95% interval, none from fewer than three
// trials), the branch gain over GCD, and Â12 and the Mann–Whitney p-value
// of the final branch coverage against GCD's; notes under the table say
// how to read them.
func Markdown(rs []Result) string {
	var b strings.Builder
	if len(rs) == 0 {
		return ""
	}
	r0 := rs[0]
	fmt.Fprintf(&b, "%s %s: %s; coverage of the library's own sources in %%, mean over trials [bootstrap 95%% CI; %s]\n\n",
		mdCell(r0.Library), mdCell(r0.Version), strings.Join(scaleText(rs), "; "), noInterval)
	b.WriteString("| method | k | seeds | trials | branch | function | line | Δ branch vs GCD | Â12 vs GCD | p vs GCD |\n")
	b.WriteString("|---|---:|---:|---:|---|---|---|---:|---:|---:|\n")
	tests := 0
	for _, r := range rs {
		k := "—"
		if r.K > 0 {
			k = strconv.Itoa(r.K)
		}
		a12, p := "—", "—"
		if c := CompareGCD(rs, r); c.OK {
			tests++
			a12 = fmt.Sprintf("%.2f %s", c.A12, EffectSize(c.A12))
			p = fmtP(c.Test.P)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s | %s | %s | %s | %s |\n", mdCell(label(r)), k, r.Seeds, r.Trials,
			ci(r.BranchPct, r.BranchCI, r.Trials), ci(r.FunctionPct, r.FunctionCI, r.Trials), ci(r.LinePct, r.LineCI, r.Trials),
			signed(DeltaVsGCD(rs, r)), a12, p)
	}
	if tests > 0 {
		b.WriteString("\n" + testNotes(rs, tests))
	}
	return b.String()
}

// testNotes explains the Â12 and p columns of a table with tests
// comparisons: what they measure, how p is computed, the multiple-comparison
// caveat, and the smallest p the trial counts allow.
func testNotes(rs []Result, tests int) string {
	var b strings.Builder
	b.WriteString("Â12 and p compare the final branch coverage of the method's trials with GCD's. " +
		"Â12: the probability that a trial of the method ends above one of GCD's (0.5: no effect; Vargha–Delaney: " +
		"|Â12 − 0.5| ≥ 0.06 small, ≥ 0.14 medium, ≥ 0.21 large). " +
		"p: two-sided Mann–Whitney U test, exact where no values tie and one side has ≤ 8 trials, " +
		"else the normal approximation with tie and continuity corrections.\n")
	fmt.Fprintf(&b, "\n\\*: p < %g", alpha)
	if tests > 1 {
		fmt.Fprintf(&b, ", uncorrected for the %d comparisons of this table: with no real difference anywhere, "+
			"about %.1f of them would fall below %g by chance; Bonferroni would ask p < %.2g", tests, alpha*float64(tests), alpha, alpha/float64(tests))
	}
	b.WriteString(".")
	if smokeTest(rs) {
		fmt.Fprintf(&b, " A smoke test (fewer than %d trials, or trials shorter than %s) checks the pipeline; it cannot compare methods.",
			minIntervalTrials, fmtSeconds(minCompareSeconds))
	}
	if lo := smallestP(rs); lo >= alpha {
		fmt.Fprintf(&b, " With these trial counts the exact test's smallest possible p is %.2f: too few trials to show a difference.", lo)
	}
	b.WriteString("\n")
	return b.String()
}

// smallestP returns the smallest two-sided p-value the exact test gives
// any method's trials against GCD's: 2/C(m+n, m) for m and n trials (1 if
// there is no GCD result). Where trials tie, the normal approximation
// applies instead, which at so few trials is no firmer ground.
func smallestP(rs []Result) float64 {
	gcd := 0
	for _, r := range rs {
		if r.Method == "gcd" {
			gcd = r.Trials
		}
	}
	lo := 1.0
	for _, r := range rs {
		if r.Method != "gcd" && gcd > 0 && r.Trials > 0 {
			lo = min(lo, 2*exactUpperTail(r.Trials, gcd, r.Trials*gcd))
		}
	}
	return lo
}

// fmtP formats a p-value, marked with * below alpha.
func fmtP(p float64) string {
	s := fmt.Sprintf("%.3f", p)
	if p < 0.001 {
		s = "< 0.001"
	}
	if p < alpha {
		s += " \\*"
	}
	return s
}

// CSV writes the table of Markdown as comma-separated values (RFC 4180,
// by encoding/csv: a method, library or version may hold a comma, a quote
// or a line break), with the interval bounds in columns of their own
// (empty from fewer than three trials) and the comparison with GCD:
// Â12, the p-value and whether it is exact.
func CSV(rs []Result) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write(strings.Split("target,library,version,method,base,k,seeds,time_seconds,trials,branch_pct,branch_lo,branch_hi,"+
		"function_pct,function_lo,function_hi,line_pct,line_lo,line_hi,delta_branch_vs_gcd_pct,"+
		"a12_branch_vs_gcd,p_mwu_branch_vs_gcd,p_exact", ","))
	f := func(x float64) string {
		if math.IsNaN(x) {
			return ""
		}
		return strconv.FormatFloat(x, 'f', 4, 64)
	}
	for _, r := range rs {
		bounds := func(c [2]float64) []string {
			if r.Trials < minIntervalTrials {
				return []string{"", ""}
			}
			return []string{f(c[0]), f(c[1])}
		}
		row := []string{r.Target, r.Library, r.Version, r.Method, r.Base, strconv.Itoa(r.K), strconv.Itoa(r.Seeds), f(r.TimeSeconds),
			strconv.Itoa(r.Trials), f(r.BranchPct)}
		row = append(row, bounds(r.BranchCI)...)
		row = append(row, f(r.FunctionPct))
		row = append(row, bounds(r.FunctionCI)...)
		row = append(row, f(r.LinePct))
		row = append(row, bounds(r.LineCI)...)
		row = append(row, f(DeltaVsGCD(rs, r)))
		if c := CompareGCD(rs, r); c.OK {
			row = append(row, f(c.A12), strconv.FormatFloat(c.Test.P, 'g', 6, 64), strconv.FormatBool(c.Test.Exact))
		} else {
			row = append(row, "", "", "")
		}
		w.Write(row)
	}
	w.Flush() // a strings.Builder does not fail
	return b.String()
}

// mdCell escapes s for a Markdown table cell: a '|' would end the cell,
// a line break the row.
var mdCell = strings.NewReplacer("|", `\|`, "\n", `\n`, "\r", `\r`).Replace

// ci formats a mean and its interval over trials; none from fewer than
// minIntervalTrials.
func ci(m float64, c [2]float64, trials int) string {
	if trials < minIntervalTrials {
		return fmt.Sprintf("%.2f (%s)", m, noInterval)
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", m, c[0], c[1])
}

func signed(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	if math.Abs(x) < 0.05 {
		return "0.0"
	}
	return fmt.Sprintf("%+.1f", x)
}

func fmtSeconds(s float64) string {
	switch {
	case s == 0:
		return "0 s (seeds only)"
	case s >= 3600 && math.Mod(s, 3600) == 0:
		return fmt.Sprintf("%g h", s/3600)
	case s >= 60 && math.Mod(s, 60) == 0:
		return fmt.Sprintf("%g min", s/60)
	}
	return fmt.Sprintf("%g s", s)
}

// trialsText says how many trials the results have ("5 trials", or a range
// when they differ).
func trialsText(rs []Result) string {
	lo, hi := rs[0].Trials, rs[0].Trials
	for _, r := range rs {
		lo, hi = min(lo, r.Trials), max(hi, r.Trials)
	}
	if lo == hi {
		if lo == 1 {
			return "1 trial"
		}
		return fmt.Sprintf("%d trials", lo)
	}
	return fmt.Sprintf("%d–%d trials", lo, hi)
}

// The scale of the paper's fuzzing runs (§4.2: 100 seeds per method, 5
// trials of 1 h), and the least a comparison of methods needs here: trials
// of five minutes (shorter ones measure the seeds more than the fuzzing;
// see experiments/fuzz-main.json), at least minIntervalTrials of them.
// Fewer or shorter trials make a smoke test, which checks the pipeline.
const (
	paperSeeds        = 100
	paperTrials       = 5
	paperTrialSeconds = 3600
	minCompareSeconds = 300
)

// scaleText says the scale of results in short lines, for figure titles
// and (joined) table captions: seeds per method, trials and their length;
// then, below the paper's scale, that it is so, or a "smoke test" (fewer
// than minIntervalTrials trials, or trials under minCompareSeconds: it
// checks the pipeline and cannot compare methods); then the paper's scale.
func scaleText(rs []Result) []string {
	secs, lo, hi := rs[0].TimeSeconds, rs[0].Seeds, rs[0].Seeds
	for _, r := range rs {
		secs = min(secs, r.TimeSeconds)
		lo, hi = min(lo, r.Seeds), max(hi, r.Seeds)
	}
	seeds := fmt.Sprintf("%d seeds per method", lo)
	if lo != hi {
		seeds = fmt.Sprintf("%d–%d seeds per method", lo, hi)
	}
	lines := []string{seeds + ", " + trialsText(rs) + " of " + fmtSeconds(secs)}
	paper := fmt.Sprintf("paper: %d seeds, %d × %s", paperSeeds, paperTrials, fmtSeconds(paperTrialSeconds))
	switch {
	case smokeTest(rs):
		lines = append(lines, fmt.Sprintf("smoke test: < %d trials or < %s", minIntervalTrials, fmtSeconds(minCompareSeconds)), paper)
	case secs < paperTrialSeconds || lo < paperSeeds || smallestTrials(rs) < paperTrials:
		lines = append(lines, "below the paper's scale", paper)
	}
	return lines
}

// smokeTest says whether some result has fewer than minIntervalTrials
// trials or trials shorter than minCompareSeconds.
func smokeTest(rs []Result) bool {
	for _, r := range rs {
		if r.Trials < minIntervalTrials || r.TimeSeconds < minCompareSeconds {
			return true
		}
	}
	return false
}

// smallestTrials returns the fewest trials of any result.
func smallestTrials(rs []Result) int {
	n := rs[0].Trials
	for _, r := range rs {
		n = min(n, r.Trials)
	}
	return n
}

// paperItems names, per target, the files of the paper's tables and
// figures (paper.tex: number, then label): the coverage table, the branch
// coverage over time, and the ablations by proposal and k of the branch,
// function and line coverage.
var paperItems = map[string]struct{ table, branch, ablBranch, ablFunction, ablLine string }{
	"sql": {"tab2-supp-metrics-sql", "fig3b-branch-sql.svg", "fig8-abl-sql.svg", "fig10-function-cov-sql.svg", "fig12-line-cov-sql.svg"},
	"xml": {"tab3-supp-metrics-xml", "fig6b-branch-xml.svg", "fig7-abl-xml.svg", "fig9-function-cov-xml.svg", "fig11-line-cov-xml.svg"},
}

// paperBenchmarks is the paper's Table 1 (tab:benchmarks:app): per target,
// the library, its version and the seed format.
var paperBenchmarks = map[string][3]string{"xml": {"libxml2", "2.15.0", ".xml"}, "sql": {"sqlite", "3.49.2", ".test"}}

// BenchmarksTable renders the paper's Table 1 for the targets of results:
// the library and version the results were measured on beside the paper's.
func BenchmarksTable(results map[string][]Result) string {
	var b strings.Builder
	b.WriteString("| Target | Library | Version (here) | Version (paper) | Seed format |\n|---|---|---|---|---|\n")
	for _, target := range Targets() {
		rs := results[target]
		if len(rs) == 0 {
			continue
		}
		p := paperBenchmarks[target]
		fmt.Fprintf(&b, "| %s | %s | %s | %s | `%s` |\n", strings.ToUpper(target), mdCell(rs[0].Library), mdCell(rs[0].Version), p[1], p[2])
	}
	return b.String()
}

// WriteReport writes, into dir, the tables and coverage-over-time figures
// of the results of every target found under dir (dir/<target>/<method>/
// coverage.json), named after the paper's (paperItems): per target the
// coverage table (.md and .csv), branch coverage over time (MCMC at its
// largest k) and the ablations of branch, function and line coverage (one
// panel per proposal, by k, GCD for reference); tables.md with every
// table; and tab1-benchmarks.md, the paper's Table 1 (BenchmarksTable).
// The output is a function of the coverage.json files alone, byte for
// byte. The files are written through pkg/outdir: with a manifest, never
// over a file gasp did not write. It returns the files written.
func WriteReport(dir string) ([]string, error) {
	files := map[string][]byte{}
	var all bytes.Buffer
	all.WriteString("# Fuzzing coverage (paper App. D, Tables 2–3)\n\nGenerated by `gasp fuzz table` from the coverage.json files of this directory.\n")
	found := map[string][]Result{}
	for _, target := range Targets() {
		if _, err := os.Stat(filepath.Join(dir, target)); err != nil {
			continue
		}
		rs, err := LoadResults(dir, target)
		if err != nil {
			return nil, err
		}
		found[target] = rs
		md := Markdown(rs)
		fmt.Fprintf(&all, "\n## %s\n\n%s", target, md)
		it := paperItems[target]
		files[it.table+".md"] = []byte(md)
		files[it.table+".csv"] = []byte(CSV(rs))
		svg, err := PlotOverTime(rs, "branch")
		if err != nil {
			return nil, fmt.Errorf("%s: %v", it.branch, err)
		}
		if svg != nil {
			files[it.branch] = svg
		}
		for _, m := range [][2]string{{"branch", it.ablBranch}, {"function", it.ablFunction}, {"line", it.ablLine}} {
			svg, err := PlotAblation(rs, m[0])
			if err != nil {
				return nil, fmt.Errorf("%s: %v", m[1], err)
			}
			if svg != nil {
				files[m[1]] = svg
			}
		}
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("%s: no results (want %s/<target>/<method>/coverage.json, target xml or sql)", dir, dir)
	}
	files["tables.md"] = all.Bytes()
	files["tab1-benchmarks.md"] = []byte("# Table 1 (tab:benchmarks:app): benchmarks, versions and seed formats\n\n" + BenchmarksTable(found))
	return outdir.Write(dir, files)
}

// readLimited reads the regular file path, of at most limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
	return infile.Read(path, limit)
}
