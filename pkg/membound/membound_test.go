package membound

import (
	"math"
	"strings"
	"testing"
)

func TestCheckAgainst(t *testing.T) {
	const total = 8 << 30
	for _, ok := range []float64{0, 1, total} {
		if err := CheckAgainst("x", ok, total); err != nil {
			t.Errorf("%g bytes: %v", ok, err)
		}
	}
	for need, want := range map[float64]string{
		total + 1:   "x needs 8.0 GiB of memory; this machine has 8.0 GiB",
		40 << 40:    "x needs 40 TiB",
		math.Inf(1): "an unbounded amount",
		math.NaN():  "an unbounded amount",
		-1:          "x needs -1 B",
		1e12 * 1e12: "TiB",
	} {
		err := CheckAgainst("x", need, total)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%g bytes: %v, want %q", need, err, want)
		}
	}
	if Total() <= 0 {
		t.Error("Total() <= 0")
	}
}
