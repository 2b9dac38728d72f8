package analysis

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The figures are named after the paper's ("Constrained Sampling for
// Language Models Should Be Easy", paper.tex): its figure number, then its
// LaTeX label with ':' dropped, so that a reader of the PDF finds them.
//
//	fig2a-sygus-repr.svg          Fig. 2a: KL vs k (the mean over the SyGuS tasks; the paper shows one task)
//	fig2b-sygus-scatter.svg       Fig. 2b: ASAp(K) vs MCMC(K) on the BV4 tasks
//	fig3a-kl-div-sql.svg          Fig. 3a: KL vs k of the SQL fuzzing task
//	fig6a-xml-div-sql.svg         Fig. 6a: KL vs k of the XML fuzzing task
//	fig13-gcd_scatters/<S>.svg    Fig. 13: GCD vs MCMC(K), one panel per subset S
//	fig14-asap_scatters/<S>.svg   Fig. 14: ASAp(K) vs MCMC(K), one panel per subset S
//	fig15-slia_kl/<task>.svg      Fig. 15: KL vs k of every SLIA task
//	fig16-bv4_kl/<task>.svg       Fig. 16: the same, BV4
//	fig17-cp_kl/<task>.svg        Fig. 17: the same, CP
//	kl/<task>.svg                 KL vs k of a task the paper does not have
//	kl_mean.svg                   KL vs k, the mean over tasks, where they are not all SyGuS tasks
//	scatter_gcd.svg               GCD vs MCMC(K) over the tasks of no SyGuS subset
//	scatter_asap.svg              ASAp(K) vs MCMC(K), the same
//
// Every figure is laid out by pkg/figure: the legend beside the data area,
// never over it; a log y axis where the KL values shown span a factor of
// 10 or more (scatters: both axes), linear from 0 otherwise; a title
// naming the figure, the quantity and the task, and a second line with the
// protocol and the runs per point (the experiment's scale).
//
// The notebooks find the figures of Files by these names.
const (
	FigSygusRepr    = "fig2a-sygus-repr.svg"    // Fig. 2a
	FigSygusScatter = "fig2b-sygus-scatter.svg" // Fig. 2b
)

// GCDScatterFigure returns the file, in Files, of Fig. 13's panel of a
// SyGuS subset ("SLIA", "BV4", "CP").
func GCDScatterFigure(subset string) string { return "fig13-gcd_scatters/" + subset + ".svg" }

// ASApScatterFigure returns the file, in Files, of Fig. 14's panel of a
// SyGuS subset.
func ASApScatterFigure(subset string) string { return "fig14-asap_scatters/" + subset + ".svg" }

// SygusSubsets returns the SyGuS subsets the paper has, in its order.
func SygusSubsets() []string { return []string{"SLIA", "BV4", "CP"} }

// sygusKL maps a SyGuS subset to the directory of its per-task figures.
var sygusKL = map[string]string{"SLIA": "fig15-slia_kl/", "BV4": "fig16-bv4_kl/", "CP": "fig17-cp_kl/"}

// fuzzKL maps a fuzzing task to the paper's KL-vs-k panel of it.
var fuzzKL = map[string]string{"sql": "fig3a-kl-div-sql.svg", "xml": "fig6a-xml-div-sql.svg"}

// subset returns the SyGuS subset of a task ("BV4" for "BV4/find_inv_…"),
// or "" for a task of no subset the paper has.
func subset(task string) string {
	if i := strings.IndexByte(task, '/'); i > 0 {
		if _, ok := sygusKL[task[:i]]; ok {
			return task[:i]
		}
	}
	return ""
}

// TaskFigure returns the file, in Files, of a task's KL-vs-k figure:
// the paper's figure of it where it has one (fig16-bv4_kl/<name>.svg).
func TaskFigure(task string) string {
	if f, ok := fuzzKL[task]; ok {
		return f
	}
	if s := subset(task); s != "" {
		return sygusKL[s] + fileName(task[len(s)+1:]) + ".svg"
	}
	return "kl/" + fileName(task) + ".svg"
}

// figureTitle returns the title of a task's KL-vs-k figure: the paper's
// figure number first where it has one.
func figureTitle(task string) string {
	switch task {
	case "sql":
		return "Fig. 3a: KL(p̂ ‖ ref) vs k, SQL fuzzing task"
	case "xml":
		return "Fig. 6a: KL(p̂ ‖ ref) vs k, XML fuzzing task"
	}
	num := map[string]string{"SLIA": "Fig. 15", "BV4": "Fig. 16", "CP": "Fig. 17"}
	if s := subset(task); s != "" {
		return num[s] + ": KL(p̂ ‖ ref) vs k, " + task
	}
	return "KL(p̂ ‖ ref) vs k, " + task
}

// methodName is a method as the paper writes it: "MCMC-Priority", "GCD".
func methodName(m string) string {
	switch m {
	case GCD:
		return "GCD"
	case ASAp:
		return "ASAp"
	case Rejection:
		return "Rejection"
	case "cars", "ars", "rsft":
		return strings.ToUpper(m)
	}
	if rest, ok := strings.CutPrefix(m, "smc"); ok {
		return "SMC" + strings.ToUpper(rest) // smc-awrs-10: SMC-AWRS-10
	}
	if rest, ok := strings.CutPrefix(m, "mcmc-"); ok {
		parts := strings.Split(rest, "-")
		for i, p := range parts {
			if p == "pp" {
				parts[i] = "PP"
			} else if p != "" {
				parts[i] = strings.ToUpper(p[:1]) + p[1:]
			}
		}
		return "MCMC-" + strings.Join(parts, "-")
	}
	return m
}

// subsets returns the SyGuS subsets among the tasks, sorted.
func (r *Report) subsets() []string {
	seen := map[string]bool{}
	for _, t := range r.Tasks {
		if s := subset(t.Task); s != "" {
			seen[s] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// sygusTasks returns the indices of the tasks in subset s, or of every
// SyGuS task when s is "".
func (r *Report) sygusTasks(s string) []int {
	var out []int
	for i, t := range r.Tasks {
		if ts := subset(t.Task); ts != "" && (s == "" || ts == s) {
			out = append(out, i)
		}
	}
	return out
}

// otherTasks returns the indices of the tasks of no SyGuS subset.
func (r *Report) otherTasks() []int {
	var out []int
	for i, t := range r.Tasks {
		if subset(t.Task) == "" {
			out = append(out, i)
		}
	}
	return out
}

// checkNames fails when two tasks map to the same figure.
func (r *Report) checkNames() error {
	seen := map[string]string{}
	for _, t := range r.Tasks {
		name := TaskFigure(t.Task)
		if other, ok := seen[name]; ok {
			return fmt.Errorf("analysis: tasks %q and %q map to the same figure %s", other, t.Task, name)
		}
		seen[name] = t.Task
	}
	return nil
}
