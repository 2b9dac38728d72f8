package analysis

import (
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/runs"
)

// Method names with a meaning for the analysis: the paper's baselines.
// Every method whose records are a chain's states (Data.Steps), built-in
// or a user's, is compared with them.
const (
	GCD       = "gcd"
	ASAp      = "asap"
	Rejection = "rejection"
)

// Steps says how a method's runs leave records, read from the records
// themselves, so that a user's method is told apart as the built-ins are:
// a chain has records at k = 0 and at k ≥ 1 (MCMC), successive samples
// start at k = 1 (ASAp), and the others have k = 0 only. A chain stored
// at k = 0 alone is indistinguishable from one sample per run, and is
// taken as that.
func (d *Data) Steps(m string) method.Steps {
	zero, later := false, false
	for _, ms := range d.series {
		for k := range ms[m] {
			zero, later = zero || k == 0, later || k > 0
		}
	}
	switch {
	case zero && later:
		return method.Chain
	case later:
		return method.Samples
	}
	return method.None
}

// Data is the records of an experiment grouped by task, method and k.
type Data struct {
	series map[string]map[string]map[int][]runs.Record // task → method → k → records, by run
}

// Load reads every record of a run store.
func Load(st *runs.Store) (*Data, error) {
	var all []runs.Record
	if err := st.Each(func(r runs.Record) error {
		all = append(all, r)
		return nil
	}); err != nil {
		return nil, err
	}
	return Group(all), nil
}

// Group groups records; within a (task, method, k) they are sorted by run.
func Group(recs []runs.Record) *Data {
	d := &Data{series: make(map[string]map[string]map[int][]runs.Record)}
	for _, r := range recs {
		ms := d.series[r.Task]
		if ms == nil {
			ms = make(map[string]map[int][]runs.Record)
			d.series[r.Task] = ms
		}
		ks := ms[r.Method]
		if ks == nil {
			ks = make(map[int][]runs.Record)
			ms[r.Method] = ks
		}
		ks[r.K] = append(ks[r.K], r)
	}
	for _, ms := range d.series {
		for _, ks := range ms {
			for _, rs := range ks {
				slices.SortStableFunc(rs, func(a, b runs.Record) int { return a.Run - b.Run })
			}
		}
	}
	return d
}

// Tasks returns the tasks, sorted.
func (d *Data) Tasks() []string { return slices.Sorted(maps.Keys(d.series)) }

// Methods returns the methods of a task, sorted (of every task when task is "").
func (d *Data) Methods(task string) []string {
	set := map[string]bool{}
	for t, ms := range d.series {
		if task != "" && t != task {
			continue
		}
		for m := range ms {
			set[m] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// Ks returns the k values of (task, method), ascending.
func (d *Data) Ks(task, method string) []int {
	ks := make([]int, 0)
	for k := range d.series[task][method] {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

// Records returns the records of (task, method) at k, sorted by run.
func (d *Data) Records(task, method string, k int) []runs.Record {
	return d.series[task][method][k]
}

// TaskRecords returns every record of a task.
func (d *Data) TaskRecords(task string) []runs.Record {
	var out []runs.Record
	for _, m := range slices.Sorted(maps.Keys(d.series[task])) {
		for _, k := range d.Ks(task, m) {
			out = append(out, d.series[task][m][k]...)
		}
	}
	return out
}

// Options configure Analyze.
type Options struct {
	Resamples int    // bootstrap resamples; 0 means 500
	Seed      uint64 // seed of the bootstrap
	// K is the step at which MCMC and ASAp are compared (MCMC(K), ASAp(K));
	// 0 means the largest k stored for the method.
	K int
	// Protocol is the estimation protocol; "" means Gasp.
	Protocol Protocol
	// Reference adds its samples to each task's reference set S (nil: the
	// store's own only). KL(p̂ ‖ ref) and so every ratio depend on S: the
	// same GCD and Priority samples give 3.04× with the methods of
	// mcmc/quick beside them and 3.46× in mcmc/quick-priority. Stores
	// analysed over the union of them all (each with the others as its
	// Reference) are comparable.
	Reference *Data
}

// Point is the KL of one method at one k on one task, or its mean over tasks.
type Point struct {
	K      int
	Runs   int     // records (runs); for a mean, the tasks averaged
	Valid  int     // valid records; for a mean, the tasks averaged
	KL     float64 // KL(p̂ ‖ ref), or the mean over tasks
	Lo, Hi float64 // 95 % bootstrap interval
}

// Series is the KL of one method at every k it has.
type Series struct {
	Method string
	Points []Point // by ascending k; k without a valid record are left out
}

// At returns the point at k.
func (s *Series) At(k int) (Point, bool) {
	for _, p := range s.Points {
		if p.K == k {
			return p, true
		}
	}
	return Point{}, false
}

// Last returns the point with the largest k.
func (s *Series) Last() (Point, bool) {
	if len(s.Points) == 0 {
		return Point{}, false
	}
	return s.Points[len(s.Points)-1], true
}

// TaskResult is the analysis of one task.
type TaskResult struct {
	Task      string
	Size      int      // |S|: distinct valid samples over all methods (and proposals, Authors)
	Proposals int      // MH proposals that entered S (Authors)
	GCDFrom   string   // the records of the GCD line: "gcd", "mcmc-restart k=0" (Authors), "" for none
	Series    []Series // by method name
	Invalid   []string // methods with records but no valid one at some k: "method k=…"
}

// Series returns the series of a method.
func (t *TaskResult) Method(method string) (*Series, bool) {
	for i := range t.Series {
		if t.Series[i].Method == method {
			return &t.Series[i], true
		}
	}
	return nil, false
}

// Report is the analysis of an experiment.
type Report struct {
	Options Options
	Methods []string // every method, sorted
	Tasks   []TaskResult
	Mean    []Series // mean KL over the tasks that have the point, with bootstrap bands
	Ratios  []Ratio
	Mono    []Monotonicity
	Accept  []Acceptance
	// Steps says how each method's runs left records (Data.Steps): the
	// chains are compared at their final k with GCD and ASAp.
	Steps map[string]method.Steps
	// Peer is the same store under the other protocol, for a side-by-side
	// report (AnalyzeBoth); nil otherwise.
	Peer *Report
}

// IsChain reports whether m's records are a chain's states at k =
// 0…K (Data.Steps).
func (r *Report) IsChain(m string) bool { return r.Steps[m] == method.Chain }

// AnalyzeBoth analyzes d under opt.Protocol and, as its Peer, under the
// other protocol.
func AnalyzeBoth(d *Data, opt Options) (*Report, error) {
	rep, err := Analyze(d, opt)
	if err != nil {
		return nil, err
	}
	opt.Protocol = rep.Options.Protocol.Other()
	if rep.Peer, err = Analyze(d, opt); err != nil {
		return nil, err
	}
	return rep, nil
}

// MaxResamples bounds the bootstrap resamples of Options and TrueOptions:
// every (task, method, k) keeps a float64 or two per resample, and the
// percentiles of 10^6 resamples are exact to more digits than are
// reported.
const MaxResamples = 1_000_000

// checkResamples fails unless n is in [1, MaxResamples].
func checkResamples(n int) error {
	if n < 1 || n > MaxResamples {
		return fmt.Errorf("analysis: resamples must be in [1, %d], got %d", MaxResamples, n)
	}
	return nil
}

// Analyze computes the KL of every (task, method, k) with its bootstrap
// interval, the means over tasks, the geometric-mean ratios, the
// monotonicity summaries and the rejection acceptance rates.
//
// Each (task, method, k) has its own bootstrap stream, seeded from
// Options.Seed and its names, so results do not depend on which other
// tasks or methods are present. The band of a mean over tasks is the
// percentile interval of the means of the tasks' resamples, resample by
// resample.
func Analyze(d *Data, opt Options) (*Report, error) {
	if opt.Resamples == 0 {
		opt.Resamples = 500
	}
	if err := checkResamples(opt.Resamples); err != nil {
		return nil, err
	}
	if opt.K < 0 {
		return nil, fmt.Errorf("analysis: bad options %+v", opt)
	}
	var err error
	if opt.Protocol, err = ParseProtocol(string(opt.Protocol)); err != nil {
		return nil, err
	}
	rep := &Report{Options: opt, Methods: d.Methods(""), Steps: map[string]method.Steps{}}
	for _, m := range rep.Methods {
		rep.Steps[m] = d.Steps(m)
	}
	type meanKey struct {
		method string
		k      int
	}
	sums := map[meanKey][]float64{} // per resample: Σ over tasks of resampled KL
	means := map[meanKey]float64{}
	counts := map[meanKey]int{}
	for _, task := range d.Tasks() {
		tr, err := analyzeTask(d, task, opt, func(m string, k int, kl float64, bs []float64) {
			mk := meanKey{m, k}
			if sums[mk] == nil {
				sums[mk] = make([]float64, opt.Resamples)
			}
			for b, v := range bs {
				sums[mk][b] += v
			}
			means[mk] += kl
			counts[mk]++
		})
		if err != nil {
			return nil, err
		}
		rep.Tasks = append(rep.Tasks, tr)
	}
	rep.Methods = nil
	for mk := range counts {
		if !slices.Contains(rep.Methods, mk.method) {
			rep.Methods = append(rep.Methods, mk.method)
		}
	}
	for _, m := range d.Methods("") {
		if !slices.Contains(rep.Methods, m) {
			rep.Methods = append(rep.Methods, m)
		}
	}
	sort.Strings(rep.Methods)
	for _, m := range rep.Methods {
		s := Series{Method: m}
		var ks []int
		for mk := range counts {
			if mk.method == m {
				ks = append(ks, mk.k)
			}
		}
		sort.Ints(ks)
		for _, k := range ks {
			mk := meanKey{m, k}
			n := float64(counts[mk])
			bs := make([]float64, len(sums[mk]))
			for b, v := range sums[mk] {
				bs[b] = v / n
			}
			s.Points = append(s.Points, Point{K: k, Runs: counts[mk], Valid: counts[mk], KL: means[mk] / n,
				Lo: percentile(bs, 2.5), Hi: percentile(bs, 97.5)})
		}
		rep.Mean = append(rep.Mean, s)
	}
	rep.Ratios = ratios(rep)
	rep.Mono = monotonicity(rep)
	rep.Accept = acceptance(d)
	return rep, nil
}

// analyzeTask computes the series of one task under opt.Protocol, calling
// point with each point's KL and bootstrap KLs.
func analyzeTask(d *Data, task string, opt Options, point func(m string, k int, kl float64, bs []float64)) (TaskResult, error) {
	p := opt.Protocol
	recs := d.TaskRecords(task)
	if opt.Reference != nil {
		recs = append(slices.Clip(recs), opt.Reference.TaskRecords(task)...)
	}
	ref := newReference(recs, p)
	view, from := d.view(task, p)
	tr := TaskResult{Task: task, Size: ref.Size(), Proposals: ref.props, GCDFrom: from}
	for _, m := range slices.Sorted(maps.Keys(view)) {
		s := Series{Method: m}
		for _, k := range slices.Sorted(maps.Keys(view[m])) {
			recs := view[m][k]
			c := p.counts(recs)
			if c.Valid == 0 {
				tr.Invalid = append(tr.Invalid, fmt.Sprintf("%s k=%d", m, k))
				continue
			}
			e, err := ref.empirical(recs)
			if err != nil {
				return tr, err
			}
			bs := e.resample(opt.Resamples, newRand(streamSeed(opt.Seed, task, m, k)))
			kl := e.kl(e.counts, len(e.draws))
			if p == Authors {
				kl = mean(bs) // their scripts plot the mean of the bootstrap KLs
			}
			s.Points = append(s.Points, Point{K: k, Runs: c.Records, Valid: c.Valid, KL: kl,
				Lo: percentile(bs, 2.5), Hi: percentile(bs, 97.5)})
			point(m, k, kl, bs)
		}
		tr.Series = append(tr.Series, s)
	}
	return tr, nil
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// streamSeed derives the bootstrap seed of one (task, method, k).
func streamSeed(seed uint64, task, method string, k int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%s\x00%d", seed, task, method, k)
	return h.Sum64()
}

// finalK returns the k at which a method is compared: opt.K, or its last k.
func (r *Report) finalPoint(s *Series) (Point, bool) {
	if r.Options.K > 0 {
		return s.At(r.Options.K)
	}
	return s.Last()
}

// Ratio is the geometric mean over tasks of KL(base)/KL(method) for one
// MCMC method at its final k: base is GCD, or ASAp at the same k.
type Ratio struct {
	Method  string
	K       int
	VsGCD   float64 // geomean of KL(GCD)/KL(MCMC(K)); NaN with no task
	NGCD    int     // tasks in it
	VsASAp  float64 // geomean of KL(ASAp(K))/KL(MCMC(K))
	NASAp   int
	Skipped int // tasks left out of either: a KL missing or zero
}

// PaperRatios returns the paper's headline geomean KL reductions at k = 10
// (vs GCD, vs ASAp(10)) per method, for comparison: a new map at each
// call. They are over the SyGuS tasks (§4.1): the paper gives none for its
// fuzzing tasks (PaperRatio).
func PaperRatios() map[string][2]float64 {
	return map[string][2]float64{
		"mcmc-uniform":  {2.11, 3.99},
		"mcmc-priority": {2.42, 5.08},
		"mcmc-restart":  {5.07, 8.70},
	}
}

// paperFamilies are the task families of the paper's §4.1 (SyGuS SLIA and
// BV4, constituency parsing), which PaperRatios average over.
var paperFamilies = []string{"SLIA/", "BV4/", "CP/"}

// PaperRatio returns the paper's ratios for method where r's tasks are all
// of the paper's §4.1 families, so that they can be set beside r's; none
// for other tasks (the fuzzing ones: the paper has no geomean for them).
func (r *Report) PaperRatio(method string) ([2]float64, bool) {
	p, ok := PaperRatios()[method]
	if !ok || len(r.Tasks) == 0 {
		return p, false
	}
	for _, t := range r.Tasks {
		if !slices.ContainsFunc(paperFamilies, func(f string) bool { return strings.HasPrefix(t.Task, f) }) {
			return p, false
		}
	}
	return p, true
}

func ratios(rep *Report) []Ratio {
	var out []Ratio
	for _, m := range rep.Methods {
		if !rep.IsChain(m) {
			continue
		}
		r := Ratio{Method: m, K: rep.Options.K}
		var lg, la float64
		for i := range rep.Tasks {
			t := &rep.Tasks[i]
			s, ok := t.Method(m)
			if !ok {
				continue
			}
			p, ok := rep.finalPoint(s)
			if !ok {
				r.Skipped++
				continue
			}
			r.K = max(r.K, p.K)
			skipped := false
			if g, ok := t.Method(GCD); ok && len(g.Points) > 0 && g.Points[0].KL > 0 && p.KL > 0 {
				lg += math.Log(g.Points[0].KL / p.KL)
				r.NGCD++
			} else {
				skipped = true
			}
			if a, ok := t.Method(ASAp); ok {
				if q, ok := a.At(p.K); ok && q.KL > 0 && p.KL > 0 {
					la += math.Log(q.KL / p.KL)
					r.NASAp++
				} else {
					skipped = true
				}
			} else {
				skipped = true
			}
			if skipped {
				r.Skipped++
			}
		}
		r.VsGCD, r.VsASAp = math.NaN(), math.NaN()
		if r.NGCD > 0 {
			r.VsGCD = math.Exp(lg / float64(r.NGCD))
		}
		if r.NASAp > 0 {
			r.VsASAp = math.Exp(la / float64(r.NASAp))
		}
		out = append(out, r)
	}
	return out
}

// Monotonicity summarises how one method's KL evolves with k on one task,
// over its points with k ≥ 1 (MCMC(0) is a GCD sample).
type Monotonicity struct {
	Task, Method string
	Points       int     // k values
	First, Last  float64 // KL at the smallest and largest k
	Increases    int     // steps k → k+1 where KL went up
	Tau          float64 // Kendall's τ_b between k and KL: −1 is strictly decreasing
}

func monotonicity(rep *Report) []Monotonicity {
	var out []Monotonicity
	for _, t := range rep.Tasks {
		for _, s := range t.Series {
			if rep.Steps[s.Method] == method.None {
				continue
			}
			var ks, kl []float64
			for _, p := range s.Points {
				if p.K >= 1 {
					ks = append(ks, float64(p.K))
					kl = append(kl, p.KL)
				}
			}
			if len(kl) < 2 {
				continue
			}
			m := Monotonicity{Task: t.Task, Method: s.Method, Points: len(kl), First: kl[0], Last: kl[len(kl)-1], Tau: kendall(ks, kl)}
			for i := 1; i < len(kl); i++ {
				if kl[i] > kl[i-1] {
					m.Increases++
				}
			}
			out = append(out, m)
		}
	}
	return out
}

// kendall returns Kendall's τ_b of x and y (NaN when either is constant).
func kendall(x, y []float64) float64 {
	var c, d, tx, ty float64
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			a, b := sign(x[i]-x[j]), sign(y[i]-y[j])
			switch {
			case a == 0 && b == 0:
			case a == 0:
				tx++
			case b == 0:
				ty++
			case a == b:
				c++
			default:
				d++
			}
		}
	}
	den := math.Sqrt((c + d + tx) * (c + d + ty))
	if den == 0 {
		return math.NaN()
	}
	return (c - d) / den
}

func sign(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// Acceptance is the acceptance rate of rejection sampling on one task: each
// rejection record is one attempt, accepted when valid.
type Acceptance struct {
	Task     string
	Attempts int
	Accepted int
}

// Rate returns Accepted/Attempts.
func (a Acceptance) Rate() float64 { return float64(a.Accepted) / float64(a.Attempts) }

func acceptance(d *Data) []Acceptance {
	var out []Acceptance
	for _, t := range d.Tasks() {
		a := Acceptance{Task: t}
		for _, k := range d.Ks(t, Rejection) {
			c := Counts(d.Records(t, Rejection, k))
			a.Attempts += c.Records
			a.Accepted += c.Valid
		}
		if a.Attempts > 0 {
			out = append(out, a)
		}
	}
	return out
}
