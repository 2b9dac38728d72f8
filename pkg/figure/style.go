package figure

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// palette gives each method of the repository a fixed colour (Okabe–Ito,
// distinguishable with colour-blindness), by name, so that a method looks
// the same in every figure, KL or coverage.
var palette = map[string]color.RGBA{
	"gcd":           {0, 0, 0, 255},
	"asap":          {230, 159, 0, 255},
	"mcmc-uniform":  {0, 114, 178, 255},
	"mcmc-priority": {0, 158, 115, 255},
	"mcmc-restart":  {204, 121, 167, 255},
	"rejection":     {128, 128, 128, 255},
	"grammarinator": {153, 153, 153, 255},
}

// extra are the colours of the methods the palette does not name, in turn.
var extra = []color.RGBA{{213, 94, 0, 255}, {86, 180, 233, 255}, {240, 228, 66, 255}, {100, 100, 100, 255}}

// Colors assigns colours to methods: the palette's to the methods it
// names, the extra colours in turn to the others, in the order given.
func Colors(methods []string) map[string]color.RGBA {
	out := map[string]color.RGBA{}
	i := 0
	for _, m := range methods {
		if c, ok := palette[m]; ok {
			out[m] = c
		} else if _, done := out[m]; !done {
			out[m] = extra[i%len(extra)]
			i++
		}
	}
	return out
}

// A BandPoint is a point of a line with the interval around it.
type BandPoint struct {
	X, Y, Lo, Hi float64
}

// AddBand adds to p a line through the points (X, Y), in colour c, over a
// band of the same colour, light, from Lo to Hi. It returns the line, for
// the legend and its style.
func AddBand(p *plot.Plot, pts []BandPoint, c color.RGBA) (*plotter.Line, error) {
	band := make(plotter.XYs, 2*len(pts))
	line := make(plotter.XYs, len(pts))
	for i, pt := range pts {
		line[i] = plotter.XY{X: pt.X, Y: pt.Y}
		band[i] = plotter.XY{X: pt.X, Y: pt.Lo}
		band[len(band)-1-i] = plotter.XY{X: pt.X, Y: pt.Hi}
	}
	poly, err := plotter.NewPolygon(band)
	if err != nil {
		return nil, fmt.Errorf("figure: band: %w", err)
	}
	poly.Color = color.NRGBA{c.R, c.G, c.B, 40} // not premultiplied
	poly.LineStyle.Width = 0
	l, err := plotter.NewLine(line)
	if err != nil {
		return nil, fmt.Errorf("figure: line: %w", err)
	}
	l.Color = c
	p.Add(poly, l)
	return l, nil
}
