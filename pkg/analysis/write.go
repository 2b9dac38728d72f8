package analysis

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gasplab/gasp/pkg/outdir"
)

// Files renders the report: tables as CSV and Markdown, figures as SVG,
// keyed by their path relative to the output directory. The output is a
// function of the report alone (no time stamps, sorted keys, fixed float
// formatting), so regenerating it from the same run store gives the same
// bytes.
//
//	README.md                   the Markdown tables and an index of the figures
//	kl.csv                      KL and bootstrap interval of every (task, method, k)
//	kl_mean.csv                 the mean over tasks, with bands
//	kl_final.csv                per task: GCD, ASAp(K) and every MCMC(K)
//	geomean.csv                 geomean KL reductions vs GCD and ASAp(K), beside the paper's
//	monotonicity.csv            per task and method: how KL moves with k
//	rejection.csv               rejection sampling acceptance rates
//	fig*.svg, fig*/*.svg        the paper's figures, by number and label (figures.go)
//
// A report with a Peer (AnalyzeBoth) adds the two protocols' geomean
// ratios side by side, and the peer's tables without figures in a
// subdirectory named after its protocol:
//
//	protocols.csv               geomean KL reductions under both protocols
//	<peer>/README.md, <peer>/*.csv
func (r *Report) Files(title string) (map[string][]byte, error) {
	files := map[string][]byte{}
	files["kl.csv"] = r.klCSV()
	files["kl_mean.csv"] = r.meanCSV()
	files["kl_final.csv"] = csvBytes(r.finalTable())
	files["geomean.csv"] = csvBytes(r.ratioTable(false))
	files["monotonicity.csv"] = csvBytes(r.monoTable())
	files["rejection.csv"] = csvBytes(r.acceptTable())

	figs, err := r.figures()
	if err != nil {
		return nil, err
	}
	var names []string
	for name, b := range figs {
		files[name] = b
		names = append(names, name)
	}
	sort.Strings(names)
	files["README.md"] = r.markdown(title, names)
	if p := r.Peer; p != nil {
		files["protocols.csv"] = csvBytes(r.protocolTable(false))
		dir := string(p.Options.Protocol) + "/"
		files[dir+"kl.csv"] = p.klCSV()
		files[dir+"kl_mean.csv"] = p.meanCSV()
		files[dir+"kl_final.csv"] = csvBytes(p.finalTable())
		files[dir+"geomean.csv"] = csvBytes(p.ratioTable(false))
		files[dir+"monotonicity.csv"] = csvBytes(p.monoTable())
		files[dir+"README.md"] = p.markdown(title+", "+string(p.Options.Protocol)+" protocol", nil)
	}
	return files, nil
}

// protocolTable has, per MCMC method, its geomean ratios under r's protocol
// and its peer's, beside the paper's.
func (r *Report) protocolTable(md bool) [][]string {
	a, b := string(r.Options.Protocol), string(r.Peer.Options.Protocol)
	rows := [][]string{{"method", "k", "vs_gcd_" + a, "vs_gcd_" + b, "vs_asap_" + a, "vs_asap_" + b, "paper_vs_gcd", "paper_vs_asap"}}
	if md {
		rows[0] = []string{"method", "k", "vs GCD (" + a + ")", "vs GCD (" + b + ")", "vs ASAp(k) (" + a + ")",
			"vs ASAp(k) (" + b + ")", "paper vs GCD", "paper vs ASAp(10)"}
	}
	for _, q := range r.Ratios {
		var o Ratio
		for _, x := range r.Peer.Ratios {
			if x.Method == q.Method {
				o = x
			}
		}
		pg, pa := "", ""
		if p, ok := r.PaperRatio(q.Method); ok {
			pg, pa = ff(p[0]), ff(p[1])
		}
		rows = append(rows, []string{q.Method, strconv.Itoa(q.K), ff(q.VsGCD), ff(o.VsGCD), ff(q.VsASAp), ff(o.VsASAp), pg, pa})
	}
	return rows
}

// referenceText says what the ratios depend on, for the README: the KL of
// every method is against P renormalised over the reference set S, so a
// ratio changes with the samples S holds (Options.Reference).
func (r *Report) referenceText() string {
	s := "S is the distinct valid samples of this store's methods"
	if r.Options.Reference != nil {
		s = "S is the distinct valid samples of this store's methods and of the reference stores (`--reference`)"
	}
	return s + ". Every KL, so every ratio, depends on S: the same GCD and MCMC-Priority runs give 3.04× beside " +
		"the other methods of mcmc/quick and 3.46× in mcmc/quick-priority. Stores analysed apart are comparable when " +
		"each is analysed with the others as `--reference`."
}

// protocolText describes how r's protocol estimated KL, for its README.
func (r *Report) protocolText() string {
	if r.Options.Protocol != Authors {
		return fmt.Sprintf("Protocol gasp: KL(p̂ ‖ ref) against P renormalised over the distinct valid samples of each task "+
			"(`go doc ./pkg/analysis`), the point estimate; 95 %% intervals from %d bootstrap resamples of the runs; GCD is the gcd runs.",
			r.Options.Resamples)
	}
	props, from := 0, map[string]int{}
	for _, t := range r.Tasks {
		props += t.Proposals
		from[t.GCDFrom]++
	}
	var src []string
	for _, f := range slices.Sorted(maps.Keys(from)) {
		name := f
		if name == "" {
			name = "none"
		}
		src = append(src, fmt.Sprintf("%s on %d tasks", name, from[f]))
	}
	s := fmt.Sprintf("Protocol authors: the reference set S holds every sample that emitted an EOS, of every method and k, "+
		"and every MH proposal the store kept (%d here); the KL of a point is the mean of %d bootstrap KLs; samples "+
		"without an EOS are dropped; the GCD line is the Restart chains' starting states (GCD line: %s).",
		props, r.Options.Resamples, strings.Join(src, ", "))
	if props == 0 {
		s += " **Reduced:** the store kept no proposals (experiment without keep_proposals), so S holds the chains' " +
			"states only, as under gasp's protocol."
	}
	return s
}

// WriteDir writes Files(title) into dir through pkg/outdir: it creates
// dir, overwrites and removes only the files its manifest (written there
// with them) lists, and fails without touching anything when dir is not a
// directory or a file to write was not written by gasp.
func (r *Report) WriteDir(dir, title string) error {
	files, err := r.Files(title)
	if err != nil {
		return err
	}
	return writeDir(dir, files)
}

// writeDir writes files into dir through pkg/outdir (see Report.WriteDir).
func writeDir(dir string, files map[string][]byte) error {
	if _, err := outdir.Write(dir, files); err != nil {
		return fmt.Errorf("analysis: %w", err)
	}
	return nil
}

// ff formats a float for tables: 6 significant digits.
func ff(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

func csvBytes(rows [][]string) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.WriteAll(rows) // a bytes.Buffer does not fail
	return b.Bytes()
}

func (r *Report) klCSV() []byte {
	rows := [][]string{{"task", "method", "k", "runs", "valid", "kl", "lo", "hi"}}
	for _, t := range r.Tasks {
		for _, s := range t.Series {
			for _, p := range s.Points {
				rows = append(rows, []string{t.Task, s.Method, strconv.Itoa(p.K), strconv.Itoa(p.Runs),
					strconv.Itoa(p.Valid), ff(p.KL), ff(p.Lo), ff(p.Hi)})
			}
		}
	}
	return csvBytes(rows)
}

func (r *Report) meanCSV() []byte {
	rows := [][]string{{"method", "k", "tasks", "kl", "lo", "hi"}}
	for _, s := range r.Mean {
		for _, p := range s.Points {
			rows = append(rows, []string{s.Method, strconv.Itoa(p.K), strconv.Itoa(p.Runs), ff(p.KL), ff(p.Lo), ff(p.Hi)})
		}
	}
	return csvBytes(rows)
}

// finalMethods returns GCD, ASAp and the chains present, in that order.
func (r *Report) finalMethods() []string {
	var out []string
	for _, m := range []string{GCD, ASAp} {
		for _, x := range r.Methods {
			if x == m {
				out = append(out, m)
			}
		}
	}
	for _, m := range r.Methods {
		if r.IsChain(m) {
			out = append(out, m)
		}
	}
	return out
}

// finalTable has, per task, |S| and the KL of each method at its final k.
func (r *Report) finalTable() [][]string {
	ms := r.finalMethods()
	head := []string{"task", "distinct"}
	for _, m := range ms {
		head = append(head, m)
	}
	rows := [][]string{head}
	for i := range r.Tasks {
		t := &r.Tasks[i]
		row := []string{t.Task, strconv.Itoa(t.Size)}
		for _, m := range ms {
			cell := ""
			if s, ok := t.Method(m); ok {
				p, ok := r.finalPoint(s)
				if m == GCD {
					p, ok = s.At(0)
				}
				if ok {
					cell = ff(p.KL)
				}
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	return rows
}

func (r *Report) ratioTable(md bool) [][]string {
	rows := [][]string{{"method", "k", "vs_gcd", "tasks_gcd", "vs_asap", "tasks_asap", "skipped", "paper_vs_gcd", "paper_vs_asap"}}
	if md {
		rows[0] = []string{"method", "k", "vs GCD", "tasks", "vs ASAp(k)", "tasks", "skipped", "paper vs GCD", "paper vs ASAp(10)"}
	}
	for _, q := range r.Ratios {
		pg, pa := "", ""
		if p, ok := r.PaperRatio(q.Method); ok {
			pg, pa = ff(p[0]), ff(p[1])
		}
		rows = append(rows, []string{q.Method, strconv.Itoa(q.K), ff(q.VsGCD), strconv.Itoa(q.NGCD), ff(q.VsASAp),
			strconv.Itoa(q.NASAp), strconv.Itoa(q.Skipped), pg, pa})
	}
	return rows
}

func (r *Report) monoTable() [][]string {
	rows := [][]string{{"task", "method", "points", "first", "last", "increases", "tau"}}
	for _, m := range r.Mono {
		rows = append(rows, []string{m.Task, m.Method, strconv.Itoa(m.Points), ff(m.First), ff(m.Last),
			strconv.Itoa(m.Increases), ff(m.Tau)})
	}
	return rows
}

// monoSummary has, per method, over tasks: how many decreased from the
// first to the last k, the mean number of increases, the median τ.
func (r *Report) monoSummary() [][]string {
	rows := [][]string{{"method", "tasks", "last < first", "mean increases", "median tau"}}
	by := map[string][]Monotonicity{}
	for _, m := range r.Mono {
		by[m.Method] = append(by[m.Method], m)
	}
	for _, method := range slices.Sorted(maps.Keys(by)) {
		ms := by[method]
		dec, inc := 0, 0
		var taus []float64
		for _, m := range ms {
			if m.Last < m.First {
				dec++
			}
			inc += m.Increases
			if !math.IsNaN(m.Tau) {
				taus = append(taus, m.Tau)
			}
		}
		rows = append(rows, []string{method, strconv.Itoa(len(ms)), strconv.Itoa(dec),
			ff(float64(inc) / float64(len(ms))), ff(percentile(taus, 50))})
	}
	return rows
}

func (r *Report) acceptTable() [][]string {
	rows := [][]string{{"task", "attempts", "accepted", "rate"}}
	for _, a := range r.Accept {
		rows = append(rows, []string{a.Task, strconv.Itoa(a.Attempts), strconv.Itoa(a.Accepted), ff(a.Rate())})
	}
	return rows
}

// mdTable renders rows (the first is the header) as a Markdown table.
func mdTable(b *bytes.Buffer, rows [][]string) {
	esc := func(s string) string {
		if s == "" || s == "NaN" {
			return "–"
		}
		return strings.ReplaceAll(s, "|", `\|`)
	}
	for i, row := range rows {
		b.WriteString("|")
		for _, c := range row {
			b.WriteString(" " + esc(c) + " |")
		}
		b.WriteString("\n")
		if i == 0 {
			b.WriteString("|")
			for range row {
				b.WriteString("---|")
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
}

func (r *Report) markdown(title string, figs []string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", title)
	if r.Options.Protocol == Gasp && r.Peer == nil {
		fmt.Fprintf(&b, "Generated by `gasp analyze` from the run store (pkg/analysis): %d tasks, methods %s; KL(p̂ ‖ ref) "+
			"against P renormalised over the distinct valid samples of each task (`go doc ./pkg/analysis`), 95 %% intervals from %d "+
			"bootstrap resamples of the runs.\n\n", len(r.Tasks), strings.Join(r.Methods, ", "), r.Options.Resamples)
	} else {
		fmt.Fprintf(&b, "Generated by `gasp analyze` from the run store (pkg/analysis): %d tasks, methods %s. %s\n\n",
			len(r.Tasks), strings.Join(r.Methods, ", "), r.protocolText())
	}
	b.WriteString("## Geometric-mean KL reduction of MCMC(k)\n\n")
	b.WriteString(r.referenceText() + "\n\n")
	mdTable(&b, r.ratioTable(true))
	if p := r.Peer; p != nil {
		fmt.Fprintf(&b, "## Both protocols\n\n%s\n\n", p.protocolText())
		mdTable(&b, r.protocolTable(true))
		fmt.Fprintf(&b, "The %s protocol's tables are in [%s/](%s/README.md).\n\n", p.Options.Protocol, p.Options.Protocol, p.Options.Protocol)
	}
	b.WriteString("## Mean KL over tasks\n\n")
	mean := [][]string{{"method", "k", "tasks", "KL", "95 % band"}}
	for _, s := range r.Mean {
		for _, p := range s.Points {
			mean = append(mean, []string{s.Method, strconv.Itoa(p.K), strconv.Itoa(p.Runs), ff(p.KL), ff(p.Lo) + " – " + ff(p.Hi)})
		}
	}
	mdTable(&b, mean)
	b.WriteString("## Monotonicity in k (k ≥ 1)\n\n")
	mdTable(&b, r.monoSummary())
	b.WriteString("## KL per task at the final k\n\n")
	mdTable(&b, r.finalTable())
	if len(r.Accept) > 0 {
		b.WriteString("## Rejection sampling acceptance\n\n")
		mdTable(&b, r.acceptTable())
	}
	var invalid []string
	for _, t := range r.Tasks {
		for _, s := range t.Invalid {
			invalid = append(invalid, t.Task+": "+s)
		}
	}
	if len(invalid) > 0 {
		b.WriteString("## Points without a valid sample (left out)\n\n")
		for _, s := range invalid {
			fmt.Fprintf(&b, "- %s\n", s)
		}
		b.WriteString("\n")
	}
	if len(figs) == 0 {
		return b.Bytes()
	}
	b.WriteString("## Figures\n\n")
	for _, f := range figs {
		fmt.Fprintf(&b, "- [%s](%s)\n", f, f)
	}
	return b.Bytes()
}
