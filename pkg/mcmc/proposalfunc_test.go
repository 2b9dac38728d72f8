package mcmc

import (
	"slices"
	"testing"

	"github.com/gasplab/gasp/pkg/sample"
)

// A function is a Proposal through ProposalFunc, normalised like any.
func TestProposalFunc(t *testing.T) {
	last := ProposalFunc(func(x *sample.Record, w []float64) { w[len(w)-1] = 3 })
	p, err := Positions(last, &sample.Record{Tokens: []int{5, 6, 7}})
	if err != nil || !slices.Equal(p, []float64{0, 0, 1}) {
		t.Errorf("Positions = %v, %v", p, err)
	}
}

// A Mix whose Else gives invalid weights is an error, not a Restart in
// disguise.
func TestMixInvalidElse(t *testing.T) {
	x := &sample.Record{Tokens: []int{5, 6, 7}}
	zero := ProposalFunc(func(*sample.Record, []float64) {})
	if p, err := Positions(Mix{P: 0.5, Else: zero}, x); err == nil {
		t.Errorf("Positions(Mix with all-zero Else) = %v, want an error", p)
	}
	p, err := Positions(Mix{P: 0.5, Else: Uniform{}}, x)
	want := []float64{0.5 + 0.5/3, 0.5 / 3, 0.5 / 3}
	if err != nil || !slices.EqualFunc(p, want, func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }) {
		t.Errorf("Positions(Mix(0.5, Uniform)) = %v, %v, want %v", p, err, want)
	}
}
