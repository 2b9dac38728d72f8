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
	out := map[string][]byte{}
	col := colors(r.Methods)
	b, err := render(klPlot(fmt.Sprintf("KL vs k, mean over %d tasks", len(r.Tasks)), r.Mean, col))
	if err != nil {
		return nil, err
	}
	out["fig3a_mean.svg"] = b
	seen := map[string]string{}
	for _, t := range r.Tasks {
		name := "fig3a/" + fileName(t.Task) + ".svg"
		if other, ok := seen[name]; ok {
			return nil, fmt.Errorf("analysis: tasks %q and %q map to the same figure %s", other, t.Task, name)
		}
		seen[name] = t.Task
		b, err := render(klPlot("KL vs k: "+t.Task, t.Series, col))
		if err != nil {
			return nil, err
		}
		out[name] = b
	}
	for _, base := range []string{GCD, ASAp} {
		p, err := r.scatter(base, col)
		if err != nil {
			return nil, err
		}
		if p != nil {
			b, err := render(p, nil)
			if err != nil {
				return nil, err
			}
			out["fig3b_"+base+".svg"] = b
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
// dashed horizontal lines.
func klPlot(title string, series []Series, col map[string]color.RGBA) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "k"
	p.Y.Label.Text = "KL(p̂ ‖ ref)"
	p.Y.Min = 0
	p.Legend.Top = true
	kmin, kmax := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, pt := range s.Points {
			if pt.K >= 1 {
				kmin, kmax = min(kmin, float64(pt.K)), max(kmax, float64(pt.K))
			}
		}
	}
	if math.IsInf(kmin, 0) {
		kmin, kmax = 0, 1
	}
	if kmin == kmax {
		kmax = kmin + 1
	}
	p.X.Min, p.X.Max = kmin, kmax
	p.X.Tick.Marker = intTicks{}
	for _, s := range series {
		c := col[s.Method]
		var pts []Point
		for _, pt := range s.Points {
			if pt.K >= 1 {
				pts = append(pts, pt)
			}
		}
		if len(pts) == 0 {
			pt, ok := s.At(0)
			if !ok {
				continue
			}
			l, err := plotter.NewLine(plotter.XYs{{X: kmin, Y: pt.KL}, {X: kmax, Y: pt.KL}})
			if err != nil {
				return nil, err
			}
			l.Color = c
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(l)
			p.Legend.Add(s.Method, l)
			continue
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
			return nil, err
		}
		poly.Color = color.NRGBA{c.R, c.G, c.B, 40} // not premultiplied
		poly.LineStyle.Width = 0
		l, sc, err := plotter.NewLinePoints(line)
		if err != nil {
			return nil, err
		}
		l.Color = c
		sc.Color = c
		sc.Shape = draw.CircleGlyph{}
		sc.Radius = vg.Points(1.5)
		p.Add(poly, l, sc)
		p.Legend.Add(s.Method, l, sc)
	}
	return p, nil
}

// scatter draws, per task, KL(base) (x) against KL(MCMC(K)) (y) for every
// MCMC method, with the diagonal: points below it are tasks where MCMC is
// closer to the reference. It returns nil when no task has both.
func (r *Report) scatter(base string, col map[string]color.RGBA) (*plot.Plot, error) {
	p := plot.New()
	label := "GCD"
	if base == ASAp {
		label = "ASAp(k)"
	}
	p.Title.Text = fmt.Sprintf("KL per task: %s vs MCMC(k)", label)
	p.X.Label.Text = "KL of " + label
	p.Y.Label.Text = "KL of MCMC(k)"
	p.Legend.Top = true
	p.Legend.Left = true
	hi, found := 0.0, false
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}
	i := 0
	for _, m := range r.Methods {
		if !IsMCMC(m) {
			continue
		}
		var xy plotter.XYs
		for ti := range r.Tasks {
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
			x, ok := b.At(k)
			if !ok {
				continue
			}
			xy = append(xy, plotter.XY{X: x.KL, Y: y.KL})
			hi = max(hi, x.KL, y.KL)
		}
		if len(xy) == 0 {
			continue
		}
		found = true
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		sc.Color = col[m]
		sc.Shape = shapes[i%len(shapes)]
		sc.Radius = vg.Points(2.5)
		i++
		p.Add(sc)
		p.Legend.Add(m, sc)
	}
	if !found {
		return nil, nil
	}
	if hi == 0 {
		hi = 1
	}
	hi *= 1.05
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: hi, Y: hi}})
	if err != nil {
		return nil, err
	}
	diag.Color = color.RGBA{150, 150, 150, 255}
	diag.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(diag)
	p.X.Min, p.Y.Min, p.X.Max, p.Y.Max = 0, 0, hi, hi
	return p, nil
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
	return b.Bytes(), nil
}
