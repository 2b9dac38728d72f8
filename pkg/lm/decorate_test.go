package lm

import (
	"math"
	"strings"
	"testing"
)

func TestFiniteAndTimed(t *testing.T) {
	bad := float32(math.NaN())
	m := &Table{Vocab: 3, Logits: func(prefix []int) []float32 {
		if len(prefix) > 1 {
			return []float32{0, bad, 0}
		}
		return []float32{0, 0, 0}
	}}
	var u Usage
	s, err := Finite(Timed(m, &u)).NewSession(2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prefill([]int{1}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Step([]int{2}, []int{1})
	if err == nil || !strings.Contains(err.Error(), "token 1") || !strings.Contains(err.Error(), "row 1") {
		t.Errorf("Step with a NaN logit: %v", err)
	}
	if u.Steps != 1 || u.Stepped != 1 || u.Time <= 0 {
		t.Errorf("usage %+v, want 1 step of 1 row and some time", u)
	}
}
