package fuzz

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/grammar"
)

// writeResult writes a coverage.json of target and method under dir whose
// final branch coverage is branch, over 5 trials of 5 minutes; line and
// function coverage are offset from it so that columns cannot be swapped
// unnoticed.
func writeResult(t *testing.T, dir, target, method string, branch float64) {
	t.Helper()
	writeTrials(t, dir, target, method, branch, 5, 300)
}

// writeTrials is writeResult with the number and length of the trials:
// trial i ends at branch + (i − (trials−1)/2)/10, which averages to branch.
func writeTrials(t *testing.T, dir, target, method string, branch float64, trials int, secs float64) {
	t.Helper()
	rep := Report{Target: target, Library: "lib" + target, Version: "1.0", Seeds: 20, TimeSeconds: secs, Trials: trials}
	for _, s := range []float64{0, secs / 2, secs} {
		b := branch - (secs-s)/secs*2
		p := Point{Seconds: s, Coverage: Coverage{BranchPct: b, LinePct: b + 10, FunctionPct: b + 20}}
		p.BranchCI = [2]float64{b - 0.5, b + 0.5}
		p.LineCI = [2]float64{b + 9, b + 11}
		p.FunctionCI = [2]float64{b + 19, b + 21}
		rep.OverTime = append(rep.OverTime, p)
	}
	rep.Point = rep.OverTime[len(rep.OverTime)-1]
	for i := range trials {
		b := branch + (float64(i)-float64(trials-1)/2)/10
		rep.TrialReport = append(rep.TrialReport, Trial{Trial: i, Coverage: Coverage{BranchPct: b, LinePct: b + 10, FunctionPct: b + 20}})
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	d := filepath.Join(dir, target, method)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "coverage.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadResultsOrderAndDelta(t *testing.T) {
	dir := t.TempDir()
	for m, b := range map[string]float64{"mcmc-uniform-k10": 12, "grammarinator": 8, "mcmc-uniform-k2": 11,
		"gcd": 10, "asap-k10": 10.5, "mcmc-restart-k5": 9, "mcmc-priority-k10": 13} {
		writeResult(t, dir, "xml", m, b)
	}
	rs, err := LoadResults(dir, "xml")
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range rs {
		order = append(order, r.Method)
	}
	want := "gcd asap-k10 grammarinator mcmc-uniform-k2 mcmc-uniform-k10 mcmc-priority-k10 mcmc-restart-k5"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	if rs[4].Base != "mcmc-uniform" || rs[4].K != 10 || rs[0].K != 0 {
		t.Errorf("method parsing: %+v %+v", rs[4].Method, rs[0].Method)
	}
	if d := DeltaVsGCD(rs, rs[5]); math.Abs(d-30) > 1e-9 {
		t.Errorf("Δ of 13 vs 10 = %v, want 30", d)
	}
	if d := DeltaVsGCD(rs[1:], rs[1]); !math.IsNaN(d) {
		t.Errorf("Δ without GCD = %v, want NaN", d)
	}
	md := Markdown(rs)
	for _, row := range []string{
		"| GCD | — | 20 | 5 | 10.00 [9.50, 10.50] | 30.00 [29.00, 31.00] | 20.00 [19.00, 21.00] | 0.0 | — | — |",
		// Five trials a side, all above GCD's: p = 2/C(10, 5) = 2/252.
		"| MCMC-Priority | 10 | 20 | 5 | 13.00 [12.50, 13.50] | 33.00 [32.00, 34.00] | 23.00 [22.00, 24.00] | +30.0 | 1.00 large | 0.008 \\* |",
		"| Grammarinator-style | — | 20 | 5 | 8.00 [7.50, 8.50] | 28.00 [27.00, 29.00] | 18.00 [17.00, 19.00] | -20.0 | 0.00 large | 0.008 \\* |",
	} {
		if !strings.Contains(md, row) {
			t.Errorf("table lacks row\n%s\n%s", row, md)
		}
	}
	if !strings.Contains(md, "libxml 1.0: 20 seeds per method, 5 trials of 5 min; below the paper's scale; paper: 100 seeds, 5 × 1 h;") ||
		!strings.Contains(md, "uncorrected for the 6 comparisons of this table") || strings.Contains(md, "can be significant") {
		t.Errorf("table header:\n%s", md)
	}
	csv := strings.Split(strings.TrimSpace(CSV(rs)), "\n")
	if len(csv) != 8 || !strings.HasPrefix(csv[6], "xml,libxml,1.0,mcmc-priority-k10,mcmc-priority,10,20,300.0000,5,13.0000,12.5000,13.5000,33.0000,") ||
		!strings.HasSuffix(csv[6], ",30.0000,1.0000,0.00793651,true") || !strings.HasSuffix(csv[1], ",0.0000,,,") {
		t.Errorf("csv:\n%s", strings.Join(csv, "\n"))
	}
}

func TestLoadResultsErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadResults(dir, "xml"); err == nil {
		t.Error("no results: no error")
	}
	writeResult(t, dir, "sql", "gcd", 10)
	if err := os.Rename(filepath.Join(dir, "sql"), filepath.Join(dir, "xml")); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadResults(dir, "xml"); err == nil || !strings.Contains(err.Error(), `target "sql"`) {
		t.Errorf("report of another target: %v", err)
	}
	bad := filepath.Join(dir, "xml", "asap-k10")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "coverage.json"), []byte("{"), 0o644)
	if _, err := LoadResults(dir, "xml"); err == nil || !strings.Contains(err.Error(), "asap-k10") {
		t.Errorf("bad JSON: %v", err)
	}
}

// TestWriteReport checks the files written and that writing twice gives the
// same bytes.
func TestWriteReport(t *testing.T) {
	dir := t.TempDir()
	for _, target := range Targets() {
		for m, b := range map[string]float64{"gcd": 10, "grammarinator": 8, "mcmc-restart-k2": 11, "mcmc-restart-k10": 12} {
			writeResult(t, dir, target, m, b)
		}
	}
	files, err := WriteReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Per target: 2 tables, the branch plot, 3 ablation plots; tables.md and Table 1.
	if len(files) != 2*(2+1+3)+2 {
		t.Errorf("%d files written: %v", len(files), files)
	}
	first := map[string][]byte{}
	for _, f := range files {
		first[f], _ = os.ReadFile(f)
		if strings.HasSuffix(f, ".svg") {
			// Well-formed XML with the legend's entries.
			d := xml.NewDecoder(bytes.NewReader(first[f]))
			for {
				if _, err := d.Token(); err != nil {
					if err.Error() != "EOF" {
						t.Errorf("%s: %v", f, err)
					}
					break
				}
			}
			want := "MCMC-Restart (k=10)" // the methods' legend
			if strings.Contains(f, "-abl-") || strings.Contains(f, "-cov-") {
				want = "MCMC-Restart" // the panel's title
			}
			if !bytes.Contains(first[f], []byte(want)) || !bytes.Contains(first[f], []byte("GCD")) {
				t.Errorf("%s lacks %s or GCD", f, want)
			}
		}
	}
	if _, err := WriteReport(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		again, _ := os.ReadFile(f)
		if !bytes.Equal(again, first[f]) {
			t.Errorf("%s differs between two runs", filepath.Base(f))
		}
	}
	all := string(first[filepath.Join(dir, "tables.md")])
	if !strings.Contains(all, "## xml") || !strings.Contains(all, "## sql") {
		t.Errorf("tables.md:\n%s", all)
	}
}

// TestCommittedTables checks that the committed tables and plots of the
// quick protocol (analysis/fuzz-quick, the smoke test) and of the main run
// (analysis/fuzz-main) are what WriteReport makes of their committed
// coverage.json files.
func TestCommittedTables(t *testing.T) {
	for _, run := range []string{"fuzz-quick", "fuzz-main"} {
		t.Run(run, func(t *testing.T) { checkCommittedTables(t, filepath.Join("..", "..", "analysis", run)) })
	}
}

func checkCommittedTables(t *testing.T, src string) {
	reports, err := filepath.Glob(filepath.Join(src, "*", "*", "coverage.json"))
	if err != nil || len(reports) == 0 {
		t.Fatalf("no committed coverage.json under %s (%v)", src, err)
	}
	dir := t.TempDir()
	for _, r := range reports {
		rel, _ := filepath.Rel(src, r)
		data, err := os.ReadFile(r)
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, rel), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, err := WriteReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		got, _ := os.ReadFile(f)
		want, err := os.ReadFile(filepath.Join(src, filepath.Base(f)))
		if err != nil {
			t.Errorf("%s is not committed: %v", filepath.Base(f), err)
		} else if !bytes.Equal(got, want) {
			t.Errorf("%s/%s is not what gasp fuzz table writes: regenerate it", src, filepath.Base(f))
		}
	}
}

func TestDictionary(t *testing.T) {
	f, errs := grammar.Parse("t.gbnf", []byte("root ::= \"SELECT\" ws (\"a\" | \"x\\\"y\\n\")* \"SELECT\" [a-z]+ (\"ö\")?\nws ::= \" \"+ \"\\\\\\\\\"\n"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := string(Dictionary(f))
	want := "\"SELECT\"\n\"\\x5c\\x5c\"\n\"x\\x22y\\x0a\"\n\"\\xc3\\xb6\"\n"
	if got != want {
		t.Errorf("dictionary\n%s\nwant\n%s", got, want)
	}
}

// Method names are directory names: any byte but '/' and NUL. The CSV
// quotes them (encoding/csv), and a Markdown cell escapes '|' and line
// breaks, so that every row keeps its columns (issue 33 F35).
func TestTableOddMethodNames(t *testing.T) {
	dir := t.TempDir()
	names := []string{"gcd", "my,method", `say "hi"`, "a|b", "two\nlines-k3"}
	for i, m := range names {
		writeResult(t, dir, "xml", m, 10+float64(i))
	}
	rs, err := LoadResults(dir, "xml")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(CSV(rs))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for i, row := range rows {
		if len(row) != 22 {
			t.Errorf("csv row %d has %d fields, want 22: %q", i, len(row), row)
			continue
		}
		got[row[3]] = true
	}
	for _, m := range names {
		if !got[m] {
			t.Errorf("csv has no row of method %q", m)
		}
	}
	md := Markdown(rs)
	lines := strings.Split(strings.TrimSpace(md), "\n")
	for _, l := range lines[2:] {
		if !strings.HasPrefix(l, "|") {
			break // the notes under the table
		}
		if n := strings.Count(l, "|") - strings.Count(l, `\|`); n != 11 {
			t.Errorf("markdown row with %d cell separators, want 11: %q", n, l)
		}
	}
	for _, cell := range []string{`| a\|b |`, `| two\nlines | 3 |`, `| my,method |`} {
		if !strings.Contains(md, cell) {
			t.Errorf("markdown lacks %q:\n%s", cell, md)
		}
	}
}

// Coverage is a percentage: a value outside [0, 100], or not a number, is
// refused naming the file and field; two directories that name the same
// method and k (k010 and k10, gcd and gcd-k0) are refused naming both
// (issue 33 F36).
func TestLoadResultsRefusesOutOfRange(t *testing.T) {
	for _, c := range []struct {
		name, field string
		set         func(r *Report)
		want        string
	}{
		{"branch 250", "branch_pct", func(r *Report) { r.BranchPct = 250 }, "branch_pct 250 is outside [0, 100]"},
		{"line -40", "line_pct", func(r *Report) { r.LinePct = -40 }, "line_pct -40 is outside [0, 100]"},
		{"function CI 1e308", "function_ci", func(r *Report) { r.FunctionCI[1] = 1e308 }, "function_ci 1e+308 is outside [0, 100]"},
		{"over time", "over_time", func(r *Report) { r.OverTime[1].BranchPct = 101 }, "over_time[1]: branch_pct 101 is outside [0, 100]"},
	} {
		dir := t.TempDir()
		writeResult(t, dir, "xml", "gcd", 10)
		path := filepath.Join(dir, "xml", "gcd", "coverage.json")
		b, _ := os.ReadFile(path)
		var r Report
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		c.set(&r)
		b, _ = json.Marshal(r)
		os.WriteFile(path, b, 0o644)
		_, err := LoadResults(dir, "xml")
		if err == nil || err.Error() != path+": "+c.want {
			t.Errorf("%s: err = %v, want %q", c.name, err, path+": "+c.want)
		}
	}
	for _, pair := range [][2]string{{"mcmc-uniform-k010", "mcmc-uniform-k10"}, {"gcd", "gcd-k0"}} {
		dir := t.TempDir()
		writeResult(t, dir, "xml", pair[0], 10)
		writeResult(t, dir, "xml", pair[1], 11)
		_, err := LoadResults(dir, "xml")
		a, b := filepath.Join(dir, "xml", pair[0], "coverage.json"), filepath.Join(dir, "xml", pair[1], "coverage.json")
		want := a + " and " + b + ": two results of one method and k"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%v: err = %v, want %q", pair, err, want)
		}
	}
}

// TestScaleText: titles and captions give seeds, trials and their length,
// and call fewer than 3 trials or trials under 5 minutes a smoke test.
func TestScaleText(t *testing.T) {
	res := func(trials int, seeds []int, secs ...float64) []Result {
		var rs []Result
		for i, s := range secs {
			rs = append(rs, Result{Report: Report{TimeSeconds: s, Trials: trials, Seeds: seeds[i%len(seeds)]}})
		}
		return rs
	}
	const smoke = "\nsmoke test: < 3 trials or < 5 min\npaper: 100 seeds, 5 × 1 h"
	const below = "\nbelow the paper's scale\npaper: 100 seeds, 5 × 1 h"
	for _, c := range []struct {
		rs   []Result
		want string
	}{
		{res(2, []int{20}, 20, 20), "20 seeds per method, 2 trials of 20 s" + smoke},
		{res(2, []int{3, 20}, 3600, 20), "3–20 seeds per method, 2 trials of 20 s" + smoke},
		{res(2, []int{50}, 600), "50 seeds per method, 2 trials of 10 min" + smoke},
		{res(3, []int{50}, 600), "50 seeds per method, 3 trials of 10 min" + below},
		{res(3, []int{100}, 3600), "100 seeds per method, 3 trials of 1 h" + below},
		{res(5, []int{50}, 299), "50 seeds per method, 5 trials of 299 s" + smoke},
		{res(5, []int{50}, 300), "50 seeds per method, 5 trials of 5 min" + below},
		{res(5, []int{100}, 3600), "100 seeds per method, 5 trials of 1 h"},
		{res(5, []int{60, 100}, 7200, 7200), "60–100 seeds per method, 5 trials of 2 h" + below},
	} {
		if got := strings.Join(scaleText(c.rs), "\n"); got != c.want {
			t.Errorf("scaleText(%v s) = %q, want %q", c.rs[0].TimeSeconds, got, c.want)
		}
	}
}

// Fewer than three trials give no interval: the tables say so and the
// CSV leaves the bounds empty; with two trials a side the exact test's p
// is at least 1/3, and the notes say so.
func TestTableFewTrials(t *testing.T) {
	dir := t.TempDir()
	writeTrials(t, dir, "sql", "gcd", 10, 2, 20)
	writeTrials(t, dir, "sql", "mcmc-priority-k10", 13, 2, 20)
	rs, err := LoadResults(dir, "sql")
	if err != nil {
		t.Fatal(err)
	}
	md := Markdown(rs)
	for _, want := range []string{
		"libsql 1.0: 20 seeds per method, 2 trials of 20 s; smoke test: < 3 trials or < 5 min;",
		"A smoke test (fewer than 3 trials, or trials shorter than 5 min) checks the pipeline; it cannot compare methods.",
		"| MCMC-Priority | 10 | 20 | 2 | 13.00 (n < 3: no interval) | 33.00 (n < 3: no interval) | 23.00 (n < 3: no interval) | +30.0 | 1.00 large | 0.333 |",
		"With these trial counts the exact test's smallest possible p is 0.33: too few trials to show a difference.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	if regexp.MustCompile(`\[[0-9]`).MatchString(md) {
		t.Errorf("table draws an interval from 2 trials:\n%s", md)
	}
	rows := strings.Split(strings.TrimSpace(CSV(rs)), "\n")
	if !strings.HasPrefix(rows[2], "sql,libsql,1.0,mcmc-priority-k10,mcmc-priority,10,20,20.0000,2,13.0000,,,33.0000,,,23.0000,,,30.0000,1.0000,0.333333,true") {
		t.Errorf("csv row %q", rows[2])
	}
	svg, err := PlotOverTime(rs, "branch")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("n &lt; 3: no interval")) || !bytes.Contains(svg, []byte("smoke test")) {
		t.Errorf("figure title lacks the scale or the interval note")
	}
}

// A report whose trial_results do not match its trial count is refused.
func TestLoadResultsTrialCount(t *testing.T) {
	dir := t.TempDir()
	writeResult(t, dir, "xml", "gcd", 10)
	path := filepath.Join(dir, "xml", "gcd", "coverage.json")
	b, _ := os.ReadFile(path)
	var r Report
	json.Unmarshal(b, &r)
	r.TrialReport = r.TrialReport[:3]
	b, _ = json.Marshal(r)
	os.WriteFile(path, b, 0o644)
	if _, err := LoadResults(dir, "xml"); err == nil || err.Error() != path+": trials is 5 but trial_results holds 3" {
		t.Errorf("err = %v", err)
	}
}

// TestPlotOverTimeUserMethod: a method of the user's with seeds at several k ("floor-k2", "floor-k10") is
// drawn at its largest k, as the built-in MCMC methods are, whatever its name.
func TestPlotOverTimeUserMethod(t *testing.T) {
	dir := t.TempDir()
	writeTrials(t, dir, "sql", "gcd", 10, 3, 20)
	writeTrials(t, dir, "sql", "floor-k2", 11, 3, 20)
	writeTrials(t, dir, "sql", "floor-k10", 12, 3, 20)
	rs, err := LoadResults(dir, "sql")
	if err != nil {
		t.Fatal(err)
	}
	svg, err := PlotOverTime(rs, "branch")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("k=10")) || bytes.Contains(svg, []byte("k=2)")) {
		t.Errorf("the over-time figure should draw floor at k = 10 only:\n%s", svg)
	}
}

// TestPlotAblationUserMethod: the ablation figure has a panel for every method with results at several k, a
// user's included, and none for a method at one k.
func TestPlotAblationUserMethod(t *testing.T) {
	dir := t.TempDir()
	writeTrials(t, dir, "sql", "gcd", 10, 3, 20)
	writeTrials(t, dir, "sql", "asap-k10", 10, 3, 20)
	writeTrials(t, dir, "sql", "floor-k2", 11, 3, 20)
	writeTrials(t, dir, "sql", "floor-k10", 12, 3, 20)
	rs, err := LoadResults(dir, "sql")
	if err != nil {
		t.Fatal(err)
	}
	svg, err := PlotAblation(rs, "branch")
	if err != nil || svg == nil {
		t.Fatalf("no ablation figure: %v", err)
	}
	if !bytes.Contains(svg, []byte("floor, libsql branch, by k")) || bytes.Contains(svg, []byte("ASAp, libsql")) {
		t.Errorf("ablation panels: want floor's, not ASAp's:\n%s", svg)
	}
}
