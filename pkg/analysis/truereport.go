package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gasplab/gasp/pkg/runs"
)

// TrueOptions configure AnalyzeTrue.
type TrueOptions struct {
	Resamples int    // bootstrap resamples (0: 500)
	Seed      uint64 // bootstrap seed
	// MinExact is the fewest exact samples for which a task's P^G counts
	// as estimated (0: 100); below it the task reports CARS's acceptance.
	MinExact int
}

// TrueRow is one method at one k on one task: its true distance to the
// exact samples beside the paper's proxy KL.
type TrueRow struct {
	Method string
	K      int
	Evals  float64  // mean LM evaluations per run up to k
	Proxy  float64  // the paper's KL to P renormalised over the observed samples
	D      Distance // to the exact samples
}

// TrueTask is a task's exact reference and its methods' distances to it.
type TrueTask struct {
	Task           string
	Exact          int     // valid exact samples
	Attempts       int     // CARS attempts, rejections included
	Evals          int64   // CARS's LM evaluations
	Estimated      bool    // Exact ≥ MinExact
	FloorTV        float64 // an exact sampler's TV with as many runs as the methods (NaN if unknown)
	FloorKL        float64
	Rows           []TrueRow
	TauKL, TauTV   float64 // Kendall τ of the proxy vs the true KL and TV across methods at their final k
	FinalByMethods []TrueRow
}

// Acceptance returns CARS's acceptance rate on the task.
func (t *TrueTask) Acceptance() float64 {
	if t.Attempts == 0 {
		return math.NaN()
	}
	return float64(t.Exact) / float64(t.Attempts)
}

// TrueReport is AnalyzeTrue's result.
type TrueReport struct {
	Options TrueOptions
	Tasks   []TrueTask
	Methods []string
}

// AnalyzeTrue measures every (task, method, k) of d against exact samples
// of P^G: exact holds, per task, the records of an exact sampler (one valid
// record per accepted sample, as experiment's cars method stores them). A
// method exact holds no record of is an error: every task would report
// too few exact samples.
func AnalyzeTrue(d *Data, exact *Data, method string, opt TrueOptions) (*TrueReport, error) {
	if opt.Resamples == 0 {
		opt.Resamples = 500
	}
	if err := checkResamples(opt.Resamples); err != nil {
		return nil, err
	}
	if opt.MinExact == 0 {
		opt.MinExact = 100
	}
	if held := exact.Methods(""); !slices.Contains(held, method) {
		return nil, fmt.Errorf("analysis: the exact samples hold no records of method %q (they hold %s)", method, strings.Join(held, ", "))
	}
	rep := &TrueReport{Options: opt}
	measured := map[string]bool{}
	for _, task := range d.Tasks() {
		ex := exact.Records(task, method, 0)
		t, err := trueTask(d, task, method, ex, opt)
		if err != nil {
			return nil, err
		}
		rep.Tasks = append(rep.Tasks, t)
		for _, row := range t.FinalByMethods {
			measured[row.Method] = true
		}
	}
	// The methods measured somewhere: not the exact series where the store
	// holds it (trueTask).
	for _, m := range d.Methods("") {
		if measured[m] {
			rep.Methods = append(rep.Methods, m)
		}
	}
	return rep, nil
}

// trueTask measures every method of d on task against the exact samples ex
// of method exactMethod. Where d holds ex itself (an imported store of the
// authors' runs is both the methods and the exact samples), that series is
// the reference, not a method measured against it.
func trueTask(d *Data, task, exactMethod string, ex []runs.Record, opt TrueOptions) (TrueTask, error) {
	t := TrueTask{Task: task, FloorTV: math.NaN(), FloorKL: math.NaN(), TauKL: math.NaN(), TauTV: math.NaN()}
	for _, r := range ex {
		t.Attempts += 1 + int(r.Rejections)
		t.Evals += r.Evals
	}
	e := NewExact(ex)
	t.Exact = e.Len()
	t.Estimated = t.Exact >= opt.MinExact
	if t.Exact == 0 {
		return t, nil
	}
	ref := NewReference(d.TaskRecords(task))
	var sizes []int // the methods' runs at their final k
	for _, m := range d.Methods(task) {
		ks := d.Ks(task, m)
		if m == exactMethod && len(ks) == 1 && sameRecords(d.Records(task, m, ks[0]), ex) {
			continue
		}
		final := finalK(d, task, m, ks)
		sizes = append(sizes, len(d.Records(task, m, final)))
		for _, k := range ks {
			recs := d.Records(task, m, k)
			row := TrueRow{Method: m, K: k, Proxy: math.NaN()}
			for _, r := range recs {
				row.Evals += float64(r.Evals) / float64(len(recs))
			}
			if kl, err := ref.KL(recs); err == nil {
				row.Proxy = kl
			}
			dist, err := e.Distance(recs, opt.Resamples, streamSeed(opt.Seed, task, m, k))
			if err != nil {
				continue // no valid sample at this k
			}
			row.D = dist
			t.Rows = append(t.Rows, row)
			if k == final {
				t.FinalByMethods = append(t.FinalByMethods, row)
			}
		}
	}
	// The floor is for the fewest runs a method has: in gasp's stores every method has the grid's runs; in
	// the authors' the chains number 100–300 and their rejection sampling has a run per attempt (thousands),
	// more than any split of the exact samples could match. Fewer runs score higher: the floor of a method
	// with more runs is at most this.
	runsPer := 0
	if len(sizes) > 0 {
		runsPer = slices.Min(sizes)
	}
	if tv, kl, ok := e.Floor(runsPer, 200, streamSeed(opt.Seed, task, "floor", runsPer)); ok {
		t.FloorTV, t.FloorKL = tv, kl
	}
	var px, tk, tt []float64
	for _, r := range t.FinalByMethods {
		if !math.IsNaN(r.Proxy) {
			px, tk, tt = append(px, r.Proxy), append(tk, r.D.KL), append(tt, r.D.TV)
		}
	}
	t.TauKL, t.TauTV = kendall(px, tk), kendall(px, tt)
	return t, nil
}

// finalK is the largest k of method m on task that every run reached: in
// gasp's stores the grid's k, where a few of the authors' chains ran longer
// than the rest (n11 files beside n10), the k of the rest.
func finalK(d *Data, task, m string, ks []int) int {
	runs := len(d.Records(task, m, ks[0]))
	final := ks[0]
	for _, k := range ks {
		if len(d.Records(task, m, k)) >= runs {
			final = k
		}
	}
	return final
}

// sameRecords reports whether a and b are the same samples, run by run.
func sameRecords(a, b []runs.Record) bool {
	return slices.EqualFunc(a, b, func(x, y runs.Record) bool {
		return x.Run == y.Run && x.Valid == y.Valid && x.EOS == y.EOS && slices.Equal(x.IDs, y.IDs)
	})
}

// MethodMean is one method's mean over the estimated tasks at its final k.
type MethodMean struct {
	Method         string
	K              int
	Tasks          int
	Proxy, TV, KL  float64
	Evals          float64
	RankProxy      int // 1 = closest by the proxy
	RankTV, RankKL int
}

// Means returns every method's means at its final k over the estimated
// tasks where every method has a proxy and a true distance (so that all
// means are over the same tasks), with the ranks each distance gives them.
func (r *TrueReport) Means() []MethodMean {
	out := make([]MethodMean, len(r.Methods))
	for i, m := range r.Methods {
		out[i].Method = m
	}
	for _, t := range r.Tasks {
		rows := t.finalRows()
		if !r.common(&t) {
			continue
		}
		for i := range out {
			row := rows[out[i].Method]
			mm := &out[i]
			mm.K = row.K
			mm.Tasks++
			mm.Proxy += row.Proxy
			mm.TV += row.D.TV
			mm.KL += row.D.KL
			mm.Evals += row.Evals
		}
	}
	if len(out) == 0 || out[0].Tasks == 0 {
		return nil
	}
	for i := range out {
		n := float64(out[i].Tasks)
		out[i].Proxy, out[i].TV, out[i].KL, out[i].Evals = out[i].Proxy/n, out[i].TV/n, out[i].KL/n, out[i].Evals/n
	}
	rank(out, func(m *MethodMean) float64 { return m.Proxy }, func(m *MethodMean, i int) { m.RankProxy = i })
	rank(out, func(m *MethodMean) float64 { return m.TV }, func(m *MethodMean, i int) { m.RankTV = i })
	rank(out, func(m *MethodMean) float64 { return m.KL }, func(m *MethodMean, i int) { m.RankKL = i })
	return out
}

// finalRows returns the task's rows at the methods' final k that have a
// proxy KL, by method.
func (t *TrueTask) finalRows() map[string]TrueRow {
	rows := map[string]TrueRow{}
	for _, row := range t.FinalByMethods {
		if !math.IsNaN(row.Proxy) {
			rows[row.Method] = row
		}
	}
	return rows
}

// common reports whether t is estimated and every method has its final
// row there: the tasks that Means and the figure average over.
func (r *TrueReport) common(t *TrueTask) bool {
	return t.Estimated && len(t.finalRows()) == len(r.Methods)
}

func rank(ms []MethodMean, v func(*MethodMean) float64, set func(*MethodMean, int)) {
	idx := make([]int, len(ms))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		x, y := v(&ms[a]), v(&ms[b])
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	for r, i := range idx {
		set(&ms[i], r+1)
	}
}

// MeanTau returns the mean of the per-task τ (proxy vs true KL, and vs
// true TV) over the estimated tasks where it is defined, and their count.
func (r *TrueReport) MeanTau() (kl, tv float64, n int) {
	for _, t := range r.Tasks {
		if t.Estimated && !math.IsNaN(t.TauKL) && !math.IsNaN(t.TauTV) {
			kl += t.TauKL
			tv += t.TauTV
			n++
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN(), 0
	}
	return kl / float64(n), tv / float64(n), n
}

func (t *TrueTask) String() string {
	return fmt.Sprintf("%s: %d exact samples (acceptance %.3f)", t.Task, t.Exact, t.Acceptance())
}
