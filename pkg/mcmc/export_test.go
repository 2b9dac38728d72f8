package mcmc

import (
	"math"
	"slices"

	"github.com/gasplab/gasp/pkg/sample"
)

// UseCutOnlyQ makes Run compute q from the drawn cut alone, the mistake
// that summing over every cut avoids: tests use it to show that the
// distribution tests notice.
func UseCutOnlyQ(c *Config) {
	c.logAlpha = func(x, y *sample.Record, px, py []float64, cut int) float64 {
		return min(0, y.LogProb()+logQCut(py, cut, x)-x.LogProb()-logQCut(px, cut, y))
	}
}

// UseNoPositionQ makes Run leave p_pos out of q: q(y|x) is taken to be the
// GCD probability of the regenerated suffix alone.
func UseNoPositionQ(c *Config) {
	c.logAlpha = func(x, y *sample.Record, px, py []float64, cut int) float64 {
		py, px = slices.Repeat([]float64{1}, len(py)), slices.Repeat([]float64{1}, len(px))
		return min(0, y.LogProb()+logQCut(py, cut, x)-x.LogProb()-logQCut(px, cut, y))
	}
}

// logQCut is the classic mistake LogQ avoids: only the cut that was drawn.
func logQCut(px []float64, cut int, y *sample.Record) float64 {
	if cut >= len(px) || px[cut] == 0 {
		return math.Inf(-1)
	}
	s := math.Log(px[cut])
	for _, v := range y.LogQ[cut:] {
		s += v
	}
	return s
}
