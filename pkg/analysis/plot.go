package analysis

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette gives each method a fixed colour (Okabe–Ito), by name, so that a
// method looks the same in every figure.
var palette = map[string]color.RGBA{
	GCD:             {0, 0, 0, 255},
	ASAp:            {230, 159, 0, 255},
	"mcmc-uniform":  {0, 114, 178, 255},
	"mcmc-priority": {0, 158, 115, 255},
	"mcmc-restart":  {204, 121, 167, 255},
	Rejection:       {128, 128, 128, 255},
}

var extra = []color.RGBA{{213, 94, 0, 255}, {86, 180, 233, 255}, {240, 228, 66, 255}, {100, 100, 100, 255}}

// colors assigns colours to methods: the palette's, then the extra ones in
// order of the sorted names.
func colors(methods []string) map[string]color.RGBA {
	out := map[string]color.RGBA{}
	i := 0
	for _, m := range methods {
		if c, ok := palette[m]; ok {
			out[m] = c
		} else {
			out[m] = extra[i%len(extra)]
			i++
		}
	}
	return out
}

func (r *Report) figures() (map[string][]byte, error) {
	if err := r.checkNames(); err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	col := colors(r.Methods)
	add := func(name string) func(*plot.Plot, error) error {
		return func(p *plot.Plot, err error) error {
			if err != nil || p == nil {
				return err
			}
			b, err := render(p, nil)
			out[name] = b
			return err
		}
	}
	all := r.sygusTasks("")
	if len(all) > 0 && len(all) == len(r.Tasks) {
		title := fmt.Sprintf("Fig. 2a: KL vs k, mean over %d SyGuS tasks", len(r.Tasks))
		if err := add(figSygusRepr)(klPlot(title, r.Mean, col)); err != nil {
			return nil, err
		}
	} else if err := add("kl_mean.svg")(klPlot(fmt.Sprintf("KL vs k, mean over %d tasks", len(r.Tasks)), r.Mean, col)); err != nil {
		return nil, err
	}
	for _, t := range r.Tasks {
		if err := add(TaskFigure(t.Task))(klPlot(figureTitle(t.Task), t.Series, col)); err != nil {
			return nil, err
		}
	}
	if bv := r.sygusTasks("BV4"); len(bv) > 0 {
		if err := add(figSygusScatter)(r.scatter(ASAp, bv, "Fig. 2b: BV4, ASAp(k) vs MCMC(k)", col)); err != nil {
			return nil, err
		}
	}
	if other := r.otherTasks(); len(other) > 0 {
		if err := add("scatter_gcd.svg")(r.scatter(GCD, other, "KL per task: GCD vs MCMC(k)", col)); err != nil {
			return nil, err
		}
		if err := add("scatter_asap.svg")(r.scatter(ASAp, other, "KL per task: ASAp(k) vs MCMC(k)", col)); err != nil {
			return nil, err
		}
	}
	for _, s := range r.subsets() {
		idx := r.sygusTasks(s)
		if err := add(figGCDScatters + s + ".svg")(r.scatter(GCD, idx, "Fig. 13: "+s+", GCD vs MCMC(k)", col)); err != nil {
			return nil, err
		}
		if err := add(figASApScatters + s + ".svg")(r.scatter(ASAp, idx, "Fig. 14: "+s+", ASAp(k) vs MCMC(k)", col)); err != nil {
			return nil, err
		}
	}
	return out, nil
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
// k ≥ 1. The y axis is logarithmic where KL spans an order
// of magnitude, and leaves room above the data for the legend.
func klPlot(title string, series []Series, col map[string]color.RGBA) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "k (MCMC steps)"
	p.Y.Label.Text = "KL(p̂ ‖ ref)"
	p.Legend.Top = true
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
	if kmin == kmax {
		kmax = kmin + 1
	}
	p.X.Min, p.X.Max = kmin, kmax
	p.X.Tick.Marker = intTicks{}
	yAxis(&p.Y, ys, legendRows(series))
	for _, s := range series {
		if err := addSeries(p, s, col[s.Method], kmin, kmax); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// legendRows counts the series klPlot draws.
func legendRows(series []Series) int {
	n := 0
	for _, s := range series {
		if len(s.Points) > 0 {
			n++
		}
	}
	return n
}

// yAxis sets a from the values it shows: logarithmic when they are all
// positive and span a factor of 10 or more, from 0 otherwise, with room at
// the top for a legend of rows lines.
func yAxis(a *plot.Axis, ys []float64, rows int) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, y := range ys {
		if !math.IsNaN(y) {
			lo, hi = min(lo, y), max(hi, y)
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	room := 0.08 * float64(rows+1) / (1 - 0.08*float64(rows+1)) // legend rows take ~8 % of the height each
	if lo > 0 && hi/lo >= 10 {
		a.Scale, a.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		a.Min, a.Max = lo/1.2, hi*math.Pow(hi/lo*1.2, room)
		return
	}
	if hi <= 0 {
		hi = 1
	}
	a.Min, a.Max = 0, hi*(1+room)
}

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
	band := make(plotter.XYs, 0, 2*len(pts))
	line := make(plotter.XYs, 0, len(pts))
	for _, pt := range pts {
		band = append(band, plotter.XY{X: float64(pt.K), Y: pt.Lo})
		line = append(line, plotter.XY{X: float64(pt.K), Y: pt.KL})
	}
	for i := len(pts) - 1; i >= 0; i-- {
		band = append(band, plotter.XY{X: float64(pts[i].K), Y: pts[i].Hi})
	}
	poly, err := plotter.NewPolygon(band)
	if err != nil {
		return err
	}
	poly.Color = color.NRGBA{c.R, c.G, c.B, 40} // not premultiplied
	poly.LineStyle.Width = 0
	l, sc, err := plotter.NewLinePoints(line)
	if err != nil {
		return err
	}
	l.Color = c
	sc.Color = c
	sc.Shape = draw.CircleGlyph{}
	sc.Radius = vg.Points(1.5)
	p.Add(poly, l, sc)
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
	p.Legend.Top = true
	p.Legend.Left = true
	var all []float64
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}
	i := 0
	for _, m := range r.Methods {
		if !IsMCMC(m) {
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
	yAxis(&p.Y, all, i)
	yAxis(&p.X, all, 0)
	p.X.Max = p.Y.Max // square, the diagonal at 45°
	diag, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: p.X.Min}, {X: p.X.Max, Y: p.X.Max}})
	if err != nil {
		return nil, err
	}
	diag.Color = color.RGBA{150, 150, 150, 255}
	diag.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(diag)
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
		if x, ok := b.At(k); ok && !math.IsNaN(x.KL) && !math.IsNaN(y.KL) {
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

// render draws p as SVG; err is klPlot's or scatter's, passed through.
func render(p *plot.Plot, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	w, err := p.WriterTo(5*vg.Inch, 3.5*vg.Inch, "svg")
	if err != nil {
		return nil, fmt.Errorf("analysis: plot: %w", err)
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("analysis: plot: %w", err)
	}
	return fontFallback(b.Bytes()), nil
}

// fontFallback gives the SVG's font, Liberation Serif (the metrics gonum/plot
// lays the text out with), metric-compatible fallbacks for a reader without
// it: Times New Roman, then any serif font.
func fontFallback(svg []byte) []byte {
	return bytes.ReplaceAll(svg, []byte("font-family:Liberation Serif;"),
		[]byte("font-family:'Liberation Serif','Times New Roman',Times,serif;"))
}
