package lm

import (
	"context"
	"errors"
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

// A cancelled context stops a session at its next call.
func TestWithContext(t *testing.T) {
	m := &Table{Vocab: 3, Logits: func([]int) []float32 { return []float32{0, 0, 0} }}
	if WithContext(context.Background(), m) != Model(m) {
		t.Error("a context that is never done wraps the model")
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := WithContext(ctx, m).NewSession(1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prefill([]int{1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Step([]int{2}, []int{0}); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := s.Step([]int{2}, []int{0}); !errors.Is(err, context.Canceled) {
		t.Errorf("Step after cancel: %v", err)
	}
	if _, err := s.Prefill([]int{1}); !errors.Is(err, context.Canceled) {
		t.Errorf("Prefill after cancel: %v", err)
	}
	if _, err := WithContext(ctx, m).NewSession(1); !errors.Is(err, context.Canceled) {
		t.Errorf("NewSession after cancel: %v", err)
	}
}
