package analysis

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/gasplab/gasp/pkg/figure"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

func (r *Report) figures() (map[string][]byte, error) {
	if err := r.checkNames(); err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	col := figure.Colors(r.Methods)
	add := func(name string) func([]byte, error) error {
		return func(svg []byte, err error) error {
			if svg != nil {
				out[name] = svg
			}
			return err
		}
	}
	line, scatter := render(lineW, lineH), render(scatterW, scatterH)
	sub := r.caption()
	bands := sub + ", 95 % bootstrap bands"
	name, title := "kl_mean.svg", fmt.Sprintf("KL(p̂ ‖ ref) vs k, mean over %d tasks", len(r.Tasks))
	if all := r.sygusTasks(""); len(all) > 0 && len(all) == len(r.Tasks) {
		name, title = FigSygusRepr, fmt.Sprintf("Fig. 2a: KL(p̂ ‖ ref) vs k, mean over %d SyGuS tasks", len(r.Tasks))
	}
	// The tasks first: a KL the mean cannot draw comes from one of them,
	// which its error then names.
	for _, t := range r.Tasks {
		if err := add(TaskFigure(t.Task))(line(klPlot(figureTitle(t.Task)+bands, t.Series, col))); err != nil {
			return nil, fmt.Errorf("%s: task %s: %w", TaskFigure(t.Task), t.Task, err)
		}
	}
	if err := add(name)(line(klPlot(title+bands, r.Mean, col))); err != nil {
		return nil, fmt.Errorf("%s: mean over the tasks: %w", name, err)
	}
	for _, f := range r.scatters() {
		if err := add(f.name)(scatter(r.scatter(f.base, f.tasks, f.title+sub, col))); err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	return out, nil
}

// A scatterFig is one scatter figure of a report: KL of base against
// MCMC(K)'s on tasks.
type scatterFig struct {
	name, title, base string
	tasks             []int
}

// scatters lists the report's scatter figures: Fig. 2b on BV4, Figs. 13
// and 14 per SyGuS subset, and both against the tasks of no subset.
func (r *Report) scatters() []scatterFig {
	var out []scatterFig
	if bv := r.sygusTasks("BV4"); len(bv) > 0 {
		out = append(out, scatterFig{FigSygusScatter, "Fig. 2b: BV4, KL of ASAp(k) vs MCMC(k) per task", ASAp, bv})
	}
	if other := r.otherTasks(); len(other) > 0 {
		out = append(out, scatterFig{"scatter_gcd.svg", "KL per task: GCD vs MCMC(k)", GCD, other},
			scatterFig{"scatter_asap.svg", "KL per task: ASAp(k) vs MCMC(k)", ASAp, other})
	}
	for _, s := range r.subsets() {
		idx := r.sygusTasks(s)
		out = append(out, scatterFig{GCDScatterFigure(s), "Fig. 13: " + s + ", KL of GCD vs MCMC(k) per task", GCD, idx},
			scatterFig{ASApScatterFigure(s), "Fig. 14: " + s + ", KL of ASAp(k) vs MCMC(k) per task", ASAp, idx})
	}
	return out
}

// caption is the second line of every title: the protocol and the runs
// the estimates rest on (the scale of the experiment).
func (r *Report) caption() string {
	runs := 0
	for _, t := range r.Tasks {
		for _, s := range t.Series {
			for _, pt := range s.Points {
				runs = max(runs, pt.Runs)
			}
		}
	}
	proto := r.Options.Protocol
	if proto == "" {
		proto = Gasp
	}
	return fmt.Sprintf("\n%s protocol, %d runs per method and k", proto, runs)
}

// fileName maps a task name to a file name: bytes other than
// [A-Za-z0-9._-] become '_'.
func fileName(task string) string {
	var b strings.Builder
	for i := 0; i < len(task); i++ {
		c := task[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
			b.WriteByte(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// klPlot draws KL against k for every series with points at k ≥ 1 (a line
// and its bootstrap band), and series with only k = 0 (GCD, rejection) as
// dashed horizontal lines; it returns nil when no series has a point at
// k ≥ 1. The y axis is logarithmic where KL spans a factor of 10
// (figure.Axis).
func klPlot(title string, series []Series, col map[string]color.RGBA) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "k (MCMC steps)"
	p.Y.Label.Text = "KL(p̂ ‖ ref)"
	kmin, kmax := math.Inf(1), math.Inf(-1)
	var ys []float64
	for _, s := range series {
		for _, pt := range s.Points {
			if pt.K >= 1 {
				kmin, kmax = min(kmin, float64(pt.K)), max(kmax, float64(pt.K))
				ys = append(ys, pt.Lo, pt.Hi, pt.KL)
			} else if len(s.Points) == 1 {
				ys = append(ys, pt.KL)
			}
		}
	}
	if math.IsInf(kmin, 0) {
		return nil, nil // no point at k ≥ 1 (rejection sampling alone): nothing to draw against k
	}
	for _, s := range series {
		if err := drawable(s); err != nil {
			return nil, err
		}
	}
	if kmin == kmax {
		kmax = kmin + 1
	}
	p.X.Min, p.X.Max = kmin, kmax
	p.X.Tick.Marker = intTicks{}
	figure.Axis(&p.Y, ys)
	for _, s := range series {
		if err := addSeries(p, s, col[s.Method], kmin, kmax); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// drawable refuses a series with a KL or a bound that is not a finite
// number (a record's log P of −∞ leaves the KL undefined), naming its
// method and k: gonum/plot's own error names neither.
func drawable(s Series) error {
	band := false // drawn as addSeries draws it: a band over k ≥ 1, else a level at k = 0
	for _, pt := range s.Points {
		band = band || pt.K >= 1
	}
	for _, pt := range s.Points {
		if band && pt.K >= 1 && (!finite(pt.KL) || !finite(pt.Lo) || !finite(pt.Hi)) || !band && pt.K == 0 && !finite(pt.KL) {
			return fmt.Errorf("method %s, k %d: KL %g [%g, %g] is not a finite number, which a figure cannot show (a record of log P −∞ or NaN?)",
				s.Method, pt.K, pt.KL, pt.Lo, pt.Hi)
		}
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// addSeries draws one series of klPlot: a line with its band, or a dashed
// level for a k = 0 method.
func addSeries(p *plot.Plot, s Series, c color.RGBA, kmin, kmax float64) error {
	var pts []Point
	for _, pt := range s.Points {
		if pt.K >= 1 {
			pts = append(pts, pt)
		}
	}
	if len(pts) == 0 {
		pt, ok := s.At(0)
		if !ok {
			return nil
		}
		l, err := plotter.NewLine(plotter.XYs{{X: kmin, Y: pt.KL}, {X: kmax, Y: pt.KL}})
		if err != nil {
			return err
		}
		l.Color = c
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
		p.Legend.Add(methodName(s.Method), l)
		return nil
	}
	band := make([]figure.BandPoint, len(pts))
	line := make(plotter.XYs, len(pts))
	for i, pt := range pts {
		band[i] = figure.BandPoint{X: float64(pt.K), Y: pt.KL, Lo: pt.Lo, Hi: pt.Hi}
		line[i] = plotter.XY{X: float64(pt.K), Y: pt.KL}
	}
	l, err := figure.AddBand(p, band, c)
	if err != nil {
		return err
	}
	sc, err := plotter.NewScatter(line)
	if err != nil {
		return err
	}
	sc.Color = c
	sc.Shape = draw.CircleGlyph{}
	sc.Radius = vg.Points(1.5)
	p.Add(sc)
	p.Legend.Add(methodName(s.Method), l, sc)
	return nil
}

// scatter draws, for the tasks idx, KL(base) (x) against KL(MCMC(K)) (y)
// for every MCMC method, with the diagonal: points below it are tasks where
// MCMC is closer to the reference. Both axes are logarithmic where the KLs
// span a factor of 10. It returns nil when no task has both.
func (r *Report) scatter(base string, idx []int, title string, col map[string]color.RGBA) (*plot.Plot, error) {
	p := plot.New()
	label := "GCD"
	if base == ASAp {
		label = "ASAp(k)"
	}
	p.Title.Text = title
	p.X.Label.Text = "KL of " + label
	p.Y.Label.Text = "KL of MCMC(k)"
	var all []float64
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}
	i := 0
	for _, m := range r.Methods {
		if !r.IsChain(m) {
			continue
		}
		xy := r.pairs(base, m, idx)
		if len(xy) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		for _, q := range xy {
			all = append(all, q.X, q.Y)
		}
		sc.Color = col[m]
		sc.Shape = shapes[i%len(shapes)]
		sc.Radius = vg.Points(2.5)
		i++
		p.Add(sc)
		p.Legend.Add(methodName(m), sc)
	}
	if len(all) == 0 {
		return nil, nil
	}
	figure.Axis(&p.Y, all)
	figure.Axis(&p.X, all) // the same range: the diagonal at 45°
	diag, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: p.X.Min}, {X: p.X.Max, Y: p.X.Max}})
	if err != nil {
		return nil, err
	}
	diag.Color = color.RGBA{150, 150, 150, 255}
	diag.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(diag)
	p.Legend.Add("equal KL", diag)
	return p, nil
}

// pairs returns, per task of idx with both, (KL of base, KL of MCMC method
// m at its final k): base at k = 0 for GCD, at the same k for ASAp.
func (r *Report) pairs(base, m string, idx []int) plotter.XYs {
	var xy plotter.XYs
	for _, ti := range idx {
		t := &r.Tasks[ti]
		s, ok := t.Method(m)
		if !ok {
			continue
		}
		y, ok := r.finalPoint(s)
		if !ok {
			continue
		}
		b, ok := t.Method(base)
		if !ok {
			continue
		}
		k := y.K
		if base == GCD {
			k = 0
		}
		if x, ok := b.At(k); ok && finite(x.KL) && finite(y.KL) { // as the tables show them
			xy = append(xy, plotter.XY{X: x.KL, Y: y.KL})
		}
	}
	return xy
}

// intTicks puts ticks at integers only.
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	step := math.Max(1, math.Ceil((hi-lo)/10))
	for v := math.Ceil(lo); v <= hi; v += step {
		out = append(out, plot.Tick{Value: v, Label: fmt.Sprintf("%d", int(v))})
	}
	return out
}

// Figure sizes: a KL-vs-k plot, a scatter (its data area about square).
const (
	lineW, lineH       = 6.5 * vg.Inch, 3.8 * vg.Inch
	scatterW, scatterH = 5.8 * vg.Inch, 4 * vg.Inch
)

// render draws p as an SVG of w × h, its legend beside the data
// (pkg/figure); err is klPlot's or scatter's, passed through.
func render(w, h vg.Length) func(*plot.Plot, error) ([]byte, error) {
	return func(p *plot.Plot, err error) ([]byte, error) {
		if err != nil || p == nil {
			return nil, err
		}
		b, err := figure.SVG(w, h, p)
		if err != nil {
			return nil, fmt.Errorf("analysis: plot: %w", err)
		}
		return b, nil
	}
}
