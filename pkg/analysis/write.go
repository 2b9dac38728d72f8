package analysis

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
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
//	fig3a_mean.svg              Fig. 3a: mean KL vs k over tasks, with bands
//	fig3a/<task>.svg            the same per task
//	fig3b_gcd.svg               Fig. 3b: KL of GCD (x) vs MCMC(K) (y), one point per task
//	fig3b_asap.svg              KL of ASAp(K) (x) vs MCMC(K) (y)
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
	return files, nil
}

// WriteDir writes Files(title) into dir, creating it, and removes the
// .csv, .md and .svg files a previous rendering left there that this one
// does not produce: dir holds generated output only.
func (r *Report) WriteDir(dir, title string) error {
	files, err := r.Files(title)
	if err != nil {
		return err
	}
	return writeDir(dir, files)
}

// writeDir writes files into dir (see Report.WriteDir).
func writeDir(dir string, files map[string][]byte) error {
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		switch filepath.Ext(path) {
		case ".csv", ".md", ".svg":
			if _, ok := files[filepath.ToSlash(rel)]; !ok {
				return os.Remove(path)
			}
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("analysis: %w", err)
	}
	for name, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("analysis: %w", err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return fmt.Errorf("analysis: %w", err)
		}
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

// finalMethods returns GCD, ASAp and the MCMC methods present, in that order.
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
		if IsMCMC(m) {
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
		if p, ok := PaperRatios[q.Method]; ok {
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
	for _, method := range sortedKeys(by) {
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
	fmt.Fprintf(&b, "Generated by `gasp analyze` from the run store (pkg/analysis): %d tasks, methods %s; KL(p̂ ‖ ref) "+
		"against P renormalised over the distinct valid samples of each task (DESIGN.md §3), 95 %% intervals from %d "+
		"bootstrap resamples of the runs.\n\n", len(r.Tasks), strings.Join(r.Methods, ", "), r.Options.Resamples)
	b.WriteString("## Geometric-mean KL reduction of MCMC(k)\n\n")
	mdTable(&b, r.ratioTable(true))
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
	b.WriteString("## Figures\n\n")
	for _, f := range figs {
		fmt.Fprintf(&b, "- [%s](%s)\n", f, f)
	}
	return b.Bytes()
}
