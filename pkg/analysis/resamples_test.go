package analysis

import (
	"math"
	"strings"
	"testing"
)

// Resamples beyond MaxResamples are refused before anything is allocated.
func TestResamplesBound(t *testing.T) {
	for _, n := range []int{-1, MaxResamples + 1, math.MaxInt} {
		if _, err := Analyze(&Data{}, Options{Resamples: n}); err == nil || !strings.Contains(err.Error(), "resamples must be in [1, 1000000]") {
			t.Errorf("Analyze, %d resamples: %v", n, err)
		}
		if _, err := AnalyzeTrue(&Data{}, &Data{}, "cars", TrueOptions{Resamples: n}); err == nil || !strings.Contains(err.Error(), "resamples must be in [1, 1000000]") {
			t.Errorf("AnalyzeTrue, %d resamples: %v", n, err)
		}
	}
}
