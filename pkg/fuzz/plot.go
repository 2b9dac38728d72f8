package fuzz

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"github.com/gasplab/gasp/pkg/figure"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

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

// metricOf returns the coverage of a metric ("branch", "line" or
// "function") at a point, with its 95 % interval.
func metricOf(metric string) (func(Point) (v, lo, hi float64), error) {
	switch metric {
	case "branch":
		return func(p Point) (float64, float64, float64) { return p.BranchPct, p.BranchCI[0], p.BranchCI[1] }, nil
	case "line":
		return func(p Point) (float64, float64, float64) { return p.LinePct, p.LineCI[0], p.LineCI[1] }, nil
	case "function":
		return func(p Point) (float64, float64, float64) { return p.FunctionPct, p.FunctionCI[0], p.FunctionCI[1] }, nil
	}
	return nil, fmt.Errorf("unknown metric %q (want branch, line or function)", metric)
}

// PlotOverTime draws, as an SVG, one metric's coverage over time of one
// target's results, as the paper's Fig. 3b / 6b: one line per method with
// its bootstrap 95 % band over trials (none from fewer than three), the
// MCMC proposals at their largest k; the title gives the scale. It returns
// nil if there is nothing to draw.
func PlotOverTime(rs []Result, metric string) ([]byte, error) {
	get, err := metricOf(metric)
	if err != nil {
		return nil, err
	}
	largest := largestK(rs)
	var chosen []Result
	for _, r := range rs {
		if r.K == largest[r.Base] { // a method with k (MCMC, ASAp) at its largest

			chosen = append(chosen, r)
		}
	}
	if len(chosen) == 0 {
		return nil, nil
	}
	p, err := coveragePlot(chosen, get, largest, func(r Result) string {
		if r.K > 0 {
			return fmt.Sprintf("%s (k=%d)", label(r), r.K)
		}
		return label(r)
	})
	if err != nil {
		return nil, err
	}
	r0 := chosen[0]
	p.Title.Text = fmt.Sprintf("%s %s: %s coverage over AFL++ time\nmean over trials, bootstrap 95 %% band (%s)\n%s",
		r0.Library, r0.Version, metric, noInterval, strings.Join(scaleText(chosen), "\n"))
	p.Y.Label.Text = metric + " coverage (%)"
	return figure.SVG(7*vg.Inch, 4.8*vg.Inch, p)
}

// PlotAblation draws, as an SVG, the paper's ablation figures (Figs. 7–12):
// one panel per method with results at several k (the MCMC proposals:
// Priority, Restart, Uniform, or a user's), each with its runs at every k (k = 2 dotted, 5 dashed, the largest solid) and GCD for
// reference, all with bootstrap 95 % bands (none from fewer than three
// trials). It returns nil if no MCMC result is there.
func PlotAblation(rs []Result, metric string) ([]byte, error) {
	get, err := metricOf(metric)
	if err != nil {
		return nil, err
	}
	largest := largestK(rs)
	var row []*plot.Plot
	for _, base := range severalK(rs) {
		var chosen []Result
		for _, r := range rs {
			if r.Base == base || r.Base == "gcd" {
				chosen = append(chosen, r)
			}
		}
		if len(chosen) == 0 || largest[base] == 0 {
			continue
		}
		p, err := coveragePlot(chosen, get, largest, func(r Result) string {
			if r.K > 0 {
				return fmt.Sprintf("k=%d", r.K)
			}
			return label(r)
		})
		if err != nil {
			return nil, err
		}
		p.Title.Text = fmt.Sprintf("%s, %s %s, by k\n95 %% band (%s)\n%s",
			label(Result{Base: base}), chosen[0].Library, metric, noInterval, strings.Join(scaleText(chosen), "\n"))
		p.Y.Label.Text = metric + " coverage (%)"
		row = append(row, p)
	}
	if len(row) == 0 {
		return nil, nil
	}
	return figure.SVG(vg.Length(len(row))*3.6*vg.Inch, 4*vg.Inch, row...)
}

// largestK returns the largest k of each base method.
func largestK(rs []Result) map[string]int {
	largest := map[string]int{}
	for _, r := range rs {
		largest[r.Base] = max(largest[r.Base], r.K)
	}
	return largest
}

// severalK returns, sorted, the methods with results at two or more k: the
// MCMC proposals of a k ablation, built-in or a user's.
func severalK(rs []Result) []string {
	ks := map[string]map[int]bool{}
	for _, r := range rs {
		if ks[r.Base] == nil {
			ks[r.Base] = map[int]bool{}
		}
		ks[r.Base][r.K] = true
	}
	var out []string
	for base, k := range ks {
		if len(k) >= 2 {
			out = append(out, base)
		}
	}
	slices.Sort(out)
	return out
}

// coveragePlot draws the results' curves with their bands (none from
// fewer than minIntervalTrials trials), a colour per base method and a dash
// per k; the y axis spans the data and its bands.
func coveragePlot(rs []Result, get func(Point) (float64, float64, float64), largest map[string]int,
	name func(Result) string) (*plot.Plot, error) {
	p := plot.New()
	p.X.Label.Text = "AFL++ time (s)"
	p.Add(plotter.NewGrid())
	lo, hi := math.Inf(1), math.Inf(-1)
	var bases []string
	for _, r := range rs {
		bases = append(bases, r.Base)
	}
	col := figure.Colors(bases)
	for _, r := range rs {
		if len(r.OverTime) == 0 {
			continue
		}
		band := make([]figure.BandPoint, len(r.OverTime))
		for i, pt := range r.OverTime {
			v, l, h := get(pt)
			band[i] = figure.BandPoint{X: pt.Seconds, Y: v, Lo: min(l, v), Hi: max(h, v)}
			lo, hi = min(lo, v), max(hi, v)
			if r.Trials >= minIntervalTrials {
				lo, hi = min(lo, l), max(hi, h)
			}
		}
		l, err := curve(p, band, col[r.Base], r.Trials >= minIntervalTrials)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", r.Method, err)
		}
		l.Width = vg.Points(1.5)
		l.Dashes = kDashes(r.K, largest[r.Base]) // a method without k has K = largest = 0: solid
		p.Legend.Add(name(r), l)
	}
	if !math.IsInf(lo, 0) {
		span := max(hi-lo, 0.01)
		p.Y.Min, p.Y.Max = lo-0.05*span, hi+0.05*span
	}
	return p, nil
}

// curve adds the line of pts to p in colour c, over its band if withBand
// (there is no band from fewer than minIntervalTrials trials).
func curve(p *plot.Plot, pts []figure.BandPoint, c color.RGBA, withBand bool) (*plotter.Line, error) {
	if withBand {
		return figure.AddBand(p, pts, c)
	}
	xy := make(plotter.XYs, len(pts))
	for i, pt := range pts {
		xy[i] = plotter.XY{X: pt.X, Y: pt.Y}
	}
	l, err := plotter.NewLine(xy)
	if err != nil {
		return nil, fmt.Errorf("line: %w", err)
	}
	l.Color = c
	p.Add(l)
	return l, nil
}
