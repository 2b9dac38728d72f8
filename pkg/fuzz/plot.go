package fuzz

import (
	"bytes"
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// methodColor is the line colour of a method in the plots (Okabe–Ito
// colours, distinguishable with colour-blindness).
var methodColor = map[string]color.RGBA{
	"gcd":           {0, 0, 0, 255},
	"asap":          {230, 159, 0, 255},
	"grammarinator": {153, 153, 153, 255},
	"mcmc-uniform":  {0, 114, 178, 255},
	"mcmc-priority": {0, 158, 115, 255},
	"mcmc-restart":  {213, 94, 0, 255},
}

// kDashes is the dash pattern of an MCMC line by k, as in the paper's
// figures: k = 2 dotted, 5 dashed, the largest solid.
func kDashes(k, largest int) []vg.Length {
	switch {
	case k == largest:
		return nil
	case k <= 2:
		return []vg.Length{vg.Points(1), vg.Points(3)}
	}
	return []vg.Length{vg.Points(6), vg.Points(3)}
}

// PlotOverTime draws coverage over time, as an SVG, for one metric
// ("branch", "line" or "function") of one target's results. Without
// ablation it draws one line per method, MCMC proposals at their largest k;
// with ablation, the MCMC proposals at every k (colour by proposal, dash by
// k). It returns nil if there is nothing to draw.
func PlotOverTime(rs []Result, metric string, ablation bool) ([]byte, error) {
	get := map[string]func(Point) float64{
		"branch":   func(p Point) float64 { return p.BranchPct },
		"line":     func(p Point) float64 { return p.LinePct },
		"function": func(p Point) float64 { return p.FunctionPct },
	}[metric]
	if get == nil {
		return nil, fmt.Errorf("unknown metric %q (want branch, line or function)", metric)
	}
	largest := map[string]int{}
	for _, r := range rs {
		largest[r.Base] = max(largest[r.Base], r.K)
	}
	var chosen []Result
	for _, r := range rs {
		mcmc := strings.HasPrefix(r.Base, "mcmc-")
		if ablation && mcmc || !ablation && (!mcmc || r.K == largest[r.Base]) {
			chosen = append(chosen, r)
		}
	}
	if len(chosen) == 0 {
		return nil, nil
	}
	p := plot.New()
	r0 := chosen[0]
	kind := "methods"
	if ablation {
		kind = "MCMC by k"
	}
	p.Title.Text = fmt.Sprintf("%s %s: %s coverage (%s)", r0.Library, r0.Version, metric, kind)
	p.X.Label.Text = "AFL++ time (s)"
	p.Y.Label.Text = metric + " coverage (%)"
	p.Legend.Top = false
	p.Legend.Left = false
	p.Add(plotter.NewGrid())
	for _, r := range chosen {
		xys := make(plotter.XYs, len(r.OverTime))
		for i, pt := range r.OverTime {
			xys[i].X, xys[i].Y = pt.Seconds, get(pt)
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", r.Method, err)
		}
		c, ok := methodColor[r.Base]
		if !ok {
			c = color.RGBA{86, 180, 233, 255}
		}
		line.Color, points.Color = c, c
		line.Width = vg.Points(1.5)
		points.Shape = draw.CircleGlyph{}
		points.Radius = vg.Points(1.5)
		if strings.HasPrefix(r.Base, "mcmc-") {
			line.Dashes = kDashes(r.K, largest[r.Base])
		}
		p.Add(line, points)
		name := label(r)
		if r.K > 0 {
			name += fmt.Sprintf(" (k=%d)", r.K)
		}
		p.Legend.Add(name, line)
	}
	c := vgsvg.New(7*vg.Inch, 4.5*vg.Inch)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
