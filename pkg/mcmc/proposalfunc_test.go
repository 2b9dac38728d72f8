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
