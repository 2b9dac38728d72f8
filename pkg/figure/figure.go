// Package figure lays out gonum/plot plots as a paper's figures and writes
// them as SVG. It is shared by pkg/analysis (KL figures) and pkg/fuzz
// (coverage figures), so that every figure of the repository reads the same.
//
// The layout:
//
//   - the legend stands to the right of the data area, outside it, top
//     aligned with it: it never covers a curve and is never clipped (the
//     canvas is split so that the widest entry fits);
//   - text is 12 pt for titles and axis labels and 10 pt for ticks and
//     legend entries, at the figure's natural size;
//   - Axis chooses a log scale where the values span a factor of 10 or more
//     (see LogRange), and the y label says so.
//
// A figure is built as any gonum plot, its entries added to p.Legend, then
// rendered:
//
//	p := plot.New()
//	p.Title.Text = "KL vs k"
//	... p.Add(line); p.Legend.Add("GCD", line)
//	figure.Axis(&p.Y, ys)
//	svg, err := figure.SVG(6.5*vg.Inch, 3.8*vg.Inch, p)
//
// SVG draws several panels side by side, each with its own legend.
package figure

import (
	"bytes"
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Text sizes of a figure.
const (
	TitleSize  = 12 // title and axis labels
	TickSize   = 10 // tick labels
	LegendSize = 10 // legend entries
)

// gap separates the data area from the legend, and panels from each other.
const gap = vg.Length(10)

// SVG draws the panels side by side on a w × h canvas, each with its legend
// to the right of its data, and returns the SVG. A panel's p.Legend is
// drawn there instead of inside the data area; panels are not modified
// otherwise.
func SVG(w, h vg.Length, panels ...*plot.Plot) ([]byte, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("figure: no panel to draw")
	}
	for _, p := range panels {
		if err := checkLogAxes(p); err != nil {
			return nil, err
		}
	}
	c := vgsvg.New(w, h)
	dc := draw.New(c)
	width := (w - gap*vg.Length(len(panels)-1)) / vg.Length(len(panels))
	for i, p := range panels {
		x := vg.Length(i) * (width + gap)
		drawPanel(p, draw.Crop(dc, x, x+width-w, 0, 0))
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("figure: %w", err)
	}
	return fontFallback(b.Bytes()), nil
}

// checkLogAxes refuses a log-scale axis that data at or below 0 reach:
// gonum/plot panics on it.
func checkLogAxes(p *plot.Plot) error {
	for _, a := range []struct {
		name string
		axis *plot.Axis
	}{{"x", &p.X}, {"y", &p.Y}} {
		if _, log := a.axis.Scale.(plot.LogScale); log && !(a.axis.Min > 0) {
			return fmt.Errorf("figure %q: the log-scale %s axis reaches %g; a log scale shows only values above 0", p.Title.Text, a.name, a.axis.Min)
		}
	}
	return nil
}

// drawPanel draws p in c with its legend in a strip at the right, as wide
// as the legend's widest entry and a margin, and its y label at the left,
// centred on the data area. It returns the data area.
func drawPanel(p *plot.Plot, c draw.Canvas) vg.Rectangle {
	style(p)
	leg, ylabel := p.Legend, p.Y.Label.Text
	// Both are drawn here, outside p.Draw: the legend beside the data; the
	// label because gonum/plot reserves room for it as if a log axis were
	// linear, leaving a band of white above the data.
	p.Legend, p.Y.Label.Text = plot.NewLegend(), ""
	defer func() { p.Legend, p.Y.Label.Text = leg, ylabel }()
	lw := leg.Rectangle(c).Size().X
	if lw > 0 {
		lw += 2 * gap // from the data, and from the edge (a reader's font may run wider)
	}
	yw := vg.Length(0)
	if ylabel != "" {
		yw = p.Y.Label.TextStyle.Height(ylabel) + p.Y.Label.TextStyle.FontExtents().Descent + p.Y.Label.Padding
	}
	pc := draw.Crop(c, yw, -lw, 0, 0)
	p.Draw(pc)
	data := p.DataCanvas(pc)
	if ylabel != "" {
		sty := p.Y.Label.TextStyle
		sty.Rotation += math.Pi / 2
		x := c.Min.X + sty.Height(ylabel) - sty.FontExtents().Descent
		c.FillText(sty, vg.Point{X: x, Y: data.Center().Y}, ylabel)
	}
	if lw > 0 {
		lc := c
		lc.Min.X, lc.Min.Y, lc.Max.Y = pc.Max.X+gap, data.Min.Y, data.Max.Y
		leg.Top, leg.Left, leg.XOffs, leg.YOffs = true, true, 0, 0
		leg.Draw(lc)
	}
	return data.Rectangle
}

// style sets p's text sizes to the package's.
func style(p *plot.Plot) {
	p.Title.TextStyle.Font.Size = font.Length(TitleSize)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = font.Length(TitleSize)
		a.Tick.Label.Font.Size = font.Length(TickSize)
	}
	p.Legend.TextStyle.Font.Size = font.Length(LegendSize)
}

// LogRange reports whether values from lo to hi are drawn on a log scale:
// when they are all positive and span a factor of 10 or more.
func LogRange(lo, hi float64) bool { return lo > 0 && hi/lo >= 10 }

// Axis fits a to the values it shows (NaNs ignored): a log scale with
// ticks at powers of ten where LogRange says so, a linear one from 0
// otherwise, with a margin of 5 % (of the span, or of the decades) at
// both ends. It returns whether the scale is logarithmic, and adds
// " (log scale)" to the axis label when it is.
func Axis(a *plot.Axis, ys []float64) (log bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, y := range ys {
		if !math.IsNaN(y) && !math.IsInf(y, 0) { // neither can be drawn
			lo, hi = min(lo, y), max(hi, y)
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	if LogRange(lo, hi) {
		a.Scale, a.Tick.Marker = plot.LogScale{}, LogTicks{}
		r := hi / lo
		m := math.Pow(r, 0.05)
		if math.IsInf(r, 1) { // the values span more than the floats
			m = math.Pow(10, 0.05*(math.Log10(hi)-math.Log10(lo)))
		}
		// At the ends of the float range the margin under- or overflows:
		// the axis then ends at the value.
		a.Min, a.Max = lo/m, hi*m
		if !(a.Min > 0) {
			a.Min = lo
		}
		if math.IsInf(a.Max, 1) {
			a.Max = hi
		}
		a.Label.Text += " (log scale)"
		return true
	}
	if hi <= 0 {
		hi = 1
	}
	a.Min, a.Max = 0, min(hi*1.05, math.MaxFloat64)
	return false
}

// LogTicks are the ticks of a log axis: those of plot.LogTicks within the
// axis' range (gonum/plot makes room for the labels of ticks past it,
// which leaves a band of white between the title and the data), with the
// 2s and 5s of each decade labelled too where the range spans less than
// two decades, so that a short axis has more than one label.
type LogTicks struct{}

func (LogTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) { // no tick on an axis a log scale cannot show (gonum/plot panics)
		return nil
	}
	few := hi/lo < 100
	var out []plot.Tick
	for _, t := range (plot.LogTicks{Prec: -1}).Ticks(lo, hi) {
		if t.Value < lo || t.Value > hi {
			continue
		}
		if m := t.Value / math.Pow(10, math.Floor(math.Log10(t.Value)+1e-9)); few && t.Label == "" && (isNear(m, 2) || isNear(m, 5)) {
			t.Label = strconv.FormatFloat(t.Value, 'g', -1, 64)
		}
		out = append(out, t)
	}
	return out
}

func isNear(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// fontFallback gives the SVG's font, Liberation Serif (the metrics gonum/plot
// lays the text out with), metric-compatible fallbacks for a reader without
// it: Times New Roman, then any serif font.
func fontFallback(svg []byte) []byte {
	return bytes.ReplaceAll(svg, []byte("font-family:Liberation Serif;"),
		[]byte("font-family:'Liberation Serif','Times New Roman',Times,serif;"))
}
