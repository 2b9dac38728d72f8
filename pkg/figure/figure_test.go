package figure

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// linePlot is a plot of one line from (1, 1) to (10, hi), named name.
func linePlot(t *testing.T, name string, hi float64) *plot.Plot {
	t.Helper()
	p := plot.New()
	p.Title.Text = "title"
	p.Y.Label.Text = "KL"
	l, err := plotter.NewLine(plotter.XYs{{X: 1, Y: 1}, {X: 10, Y: hi}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(l)
	p.Legend.Add(name, l)
	Axis(&p.Y, []float64{1, hi})
	return p
}

// The legend's text starts right of the data area and ends inside the
// canvas: it covers no curve and is not clipped.
func TestLegendBesideData(t *testing.T) {
	const name = "a rather long method name"
	for _, hi := range []float64{2, 1000} {
		p := linePlot(t, name, hi)
		rec := &recorder.Canvas{}
		c := draw.NewCanvas(rec, 5*vg.Inch, 3*vg.Inch)
		data := drawPanel(p, c)
		found := false
		for _, a := range rec.Actions {
			fs, ok := a.(*recorder.FillString)
			if !ok || fs.String != name {
				continue
			}
			found = true
			w := p.Legend.TextStyle.Width(name)
			if fs.Point.X < data.Max.X || fs.Point.X+w > c.Max.X {
				t.Errorf("hi %g: legend text at x %v..%v, data ends at %v, canvas at %v", hi, fs.Point.X, fs.Point.X+w, data.Max.X, c.Max.X)
			}
		}
		if !found {
			t.Errorf("hi %g: legend entry not drawn", hi)
		}
		if p.Legend.Rectangle(c).Size().X == 0 || p.Y.Label.Text == "" {
			t.Errorf("hi %g: drawPanel did not restore the legend or the label", hi)
		}
	}
}

func TestAxis(t *testing.T) {
	for _, c := range []struct {
		ys  []float64
		log bool
	}{
		{[]float64{0.5, 4}, false},
		{[]float64{0.5, 5}, true},
		{[]float64{0, 500}, false}, // not all positive
		{[]float64{}, false},
	} {
		var a plot.Axis
		a.Label.Text = "KL"
		if got := Axis(&a, c.ys); got != c.log || (a.Label.Text != "KL") == !c.log {
			t.Errorf("%v: log %v, label %q; want log %v", c.ys, got, a.Label.Text, c.log)
		}
		if a.Min >= a.Max {
			t.Errorf("%v: range [%g, %g]", c.ys, a.Min, a.Max)
		}
	}
}

func TestSVG(t *testing.T) {
	if _, err := SVG(4*vg.Inch, 3*vg.Inch); err == nil {
		t.Error("no panel: no error")
	}
	b, err := SVG(8*vg.Inch, 3*vg.Inch, linePlot(t, "a", 2), linePlot(t, "b", 200))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("'Times New Roman'")) || bytes.Contains(b, []byte("font-family:Liberation Serif;")) {
		t.Error("font fallbacks missing")
	}
}

func Example() {
	p := plot.New()
	p.Title.Text = "KL(p̂ ‖ ref) vs k"
	p.X.Label.Text = "k"
	p.Y.Label.Text = "KL"
	pts := plotter.XYs{{X: 1, Y: 40}, {X: 5, Y: 4}, {X: 10, Y: 0.5}}
	l, err := plotter.NewLine(pts)
	if err != nil {
		panic(err)
	}
	p.Add(l)
	p.Legend.Add("MCMC-Uniform", l)
	log := Axis(&p.Y, []float64{40, 4, 0.5})
	svg, err := SVG(6*vg.Inch, 3.5*vg.Inch, p)
	fmt.Println(log, p.Y.Label.Text, err, len(svg) > 0)
	// Output: true KL (log scale) <nil> true
}

func TestColors(t *testing.T) {
	c := Colors([]string{"gcd", "smc", "mcmc-uniform", "cars", "smc"})
	if c["gcd"] != palette["gcd"] || c["mcmc-uniform"] != palette["mcmc-uniform"] {
		t.Errorf("palette methods: %v", c)
	}
	if c["smc"] != extra[0] || c["cars"] != extra[1] {
		t.Errorf("other methods take the extra colours in turn: %v", c)
	}
}

func TestAddBand(t *testing.T) {
	p := plot.New()
	l, err := AddBand(p, []BandPoint{{X: 1, Y: 2, Lo: 1, Hi: 3}, {X: 2, Y: 1, Lo: 0.5, Hi: 1.5}}, palette["asap"])
	if err != nil {
		t.Fatal(err)
	}
	if l.Color != palette["asap"] || len(l.XYs) != 2 || l.XYs[1].Y != 1 {
		t.Errorf("line %+v", l)
	}
	xmin, xmax, ymin, ymax := plotter.XYRange(l)
	if xmin != 1 || xmax != 2 || ymin != 1 || ymax != 2 {
		t.Errorf("line range %g..%g × %g..%g", xmin, xmax, ymin, ymax)
	}
	if _, err := AddBand(p, []BandPoint{{X: 1, Y: math.NaN()}}, palette["gcd"]); err == nil {
		t.Error("a NaN point: no error")
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (LogTicks{}).Ticks(lo, hi) {
			if tk.Value < lo || tk.Value > hi {
				t.Errorf("[%g, %g]: tick %g outside", lo, hi, tk.Value)
			}
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	if got := fmt.Sprint(labels(15, 250)); got != "[20 50 100 200]" {
		t.Errorf("less than two decades: labels %s", got)
	}
	if got := fmt.Sprint(labels(0.5, 2000)); got != "[1 10 100 1000]" {
		t.Errorf("three decades: labels %s", got)
	}
}

// Values at the ends of the float range, or 0 and below, must give a
// drawable axis or an error, never a panic: a log axis of KLs from 0.5 to
// 1e308 (whose 5 % margin overflows), from a subnormal up, with infinities
// among the values; a log x axis that a data point at 0 or below reaches.
func TestAxisExtremeValues(t *testing.T) {
	for _, ys := range [][]float64{
		{0.5, 1e308}, {5e-324, 1}, {1e-320, 1e308}, {math.MaxFloat64, 1}, {1, 100, math.Inf(1)}, {0, 1e308}, {-1e308, 1, 1e308},
	} {
		p := plot.New()
		xy := plotter.XYs{}
		for i, y := range ys {
			if !math.IsInf(y, 0) {
				xy = append(xy, plotter.XY{X: float64(i + 1), Y: y})
			}
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			t.Fatal(err)
		}
		p.Add(l)
		log := Axis(&p.Y, ys)
		if log && !(p.Y.Min > 0 && p.Y.Max < math.Inf(1) && p.Y.Min < p.Y.Max) {
			t.Errorf("%g: log axis from %g to %g", ys, p.Y.Min, p.Y.Max)
		}
		if _, err := svgNoPanic(p); err != nil && log {
			t.Errorf("%g: %v", ys, err)
		}
	}
	for _, x := range []float64{0, -1, -1e308} {
		p := plot.New()
		p.Title.Text = "TV vs evaluations"
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, LogTicks{}
		sc, err := plotter.NewScatter(plotter.XYs{{X: x, Y: 1}, {X: 100, Y: 2}})
		if err != nil {
			t.Fatal(err)
		}
		p.Add(sc)
		_, err = svgNoPanic(p)
		want := fmt.Sprintf(`figure "TV vs evaluations": the log-scale x axis reaches %g; a log scale shows only values above 0`, x)
		if err == nil || err.Error() != want {
			t.Errorf("x %g: err = %v, want %q", x, err, want)
		}
	}
	if ticks := (LogTicks{}).Ticks(0, 10); len(ticks) != 0 {
		t.Errorf("LogTicks.Ticks(0, 10) = %v, want none", ticks)
	}
}

// svgNoPanic is SVG with a panic returned as an error.
func svgNoPanic(p *plot.Plot) (b []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return SVG(4*vg.Inch, 3*vg.Inch, p)
}
