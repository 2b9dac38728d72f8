package method

import (
	"math"
	"testing"

	"github.com/gasplab/gasp/pkg/sample"
)

// Rows counts SMC's particles, and saturates rather than overflow.
func TestRows(t *testing.T) {
	smc := SMC{sample.SMCOptions{Particles: 1 << 16}}
	for _, c := range []struct {
		m          Method
		runs, want int
	}{
		{GCD{}, 4, 4},
		{smc, 4, 1 << 18},
		{smc, math.MaxInt / 2, math.MaxInt},
		{smc, math.MaxInt, math.MaxInt},
		{SMC{}, 3, 3},
	} {
		if got := Rows(c.m, c.runs); got != c.want {
			t.Errorf("Rows(%T, %d) = %d, want %d", c.m, c.runs, got, c.want)
		}
	}
}
