package mcmc

import (
	"errors"
	"fmt"
	"math"

	"github.com/gasplab/gasp/pkg/sample"
)

// Proposal is the truncation distribution p_pos^x of Alg. 1: where to cut
// the current sample x before regenerating the rest with GCD.
type Proposal interface {
	// Weights sets w[i], for i in [0, len(x.Tokens)), to a non-negative
	// weight of keeping the first i tokens of x; w arrives zeroed and
	// len(w) == len(x.Tokens). Weights are normalised by the caller. It
	// must be a deterministic function of x: MH evaluates it again for the
	// reverse move.
	Weights(x *sample.Record, w []float64)
}

// ProposalFunc adapts a function to a Proposal, as http.HandlerFunc does
// a function to a Handler: a one-function proposal written in a notebook
// cell needs no type.
type ProposalFunc func(x *sample.Record, w []float64)

// Weights calls f(x, w).
func (f ProposalFunc) Weights(x *sample.Record, w []float64) { f(x, w) }

// Kernels is implemented by proposals that are mixtures of MH kernels: each
// step picks component i with probability weights[i] and then runs a whole
// MH step with proposals[i] alone, q(y|x) and q(x|y) included. A mixture of
// kernels that each leave P^G invariant leaves it invariant too.
type Kernels interface {
	Kernels() (weights []float64, proposals []Proposal)
}

// Uniform cuts at a uniformly random position: "prefix" in the authors' code
// and tables, "Uniform" in the paper.
type Uniform struct{}

func (Uniform) Weights(x *sample.Record, w []float64) {
	for i := range w {
		w[i] = 1
	}
}

// String returns "Uniform". Each built-in proposal prints as its name, so
// that tests and logs can name the proposal they ran.
func (Uniform) String() string { return "Uniform" }

// Restart always cuts at 0: an independent GCD sample each step.
type Restart struct{}

func (Restart) Weights(x *sample.Record, w []float64) { w[0] = 1 }

func (Restart) String() string { return "Restart" }

// Priority is the authors' code: p(i) ∝ exp(H_i) − 1, H_i the entropy of the
// grammar-masked distribution P_GCD(·|x_{1:i}). Positions where the grammar
// leaves one token get weight 0; truncating there is equivalent to
// truncating one token later, so this does not cut the chain's reach, but
// p(0) = 0 whenever the first token is forced (paper App. D asks for
// p(0) > 0). If every weight is 0 (each position forced: x is the only
// sentence reachable) Priority falls back to Uniform.
type Priority struct{}

func (Priority) Weights(x *sample.Record, w []float64) {
	sum := 0.0
	for i := range w {
		w[i] = math.Expm1(x.Entropy[i])
		sum += w[i]
	}
	if !(sum > 0) {
		Uniform{}.Weights(x, w)
	}
}

func (Priority) String() string { return "Priority" }

// PriorityPP is the paper's text: p(i) ∝ PP(P(·|x_{1:i})), the perplexity
// exp(H) of the model's unmasked next-token distribution. It is ≥ 1 at every
// position, so p(0) > 0.
type PriorityPP struct{}

func (PriorityPP) Weights(x *sample.Record, w []float64) {
	for i := range w {
		w[i] = math.Exp(x.RawEntropy[i])
	}
}

func (PriorityPP) String() string { return "PriorityPP" }

// Mix is the authors' "mix-p": each step is a Restart step with probability
// P, else a step of Else (nil means Priority), a mixture of kernels. Its
// Weights, used only where Kernels is ignored, are the mixture of the two
// truncation distributions; where Else's weights are invalid, every weight
// is NaN, so that Positions reports the error rather than Mix hiding it.
type Mix struct {
	P    float64
	Else Proposal
}

func (m Mix) other() Proposal {
	if m.Else == nil {
		return Priority{}
	}
	return m.Else
}

func (m Mix) Kernels() ([]float64, []Proposal) {
	return []float64{m.P, 1 - m.P}, []Proposal{Restart{}, m.other()}
}

func (m Mix) Weights(x *sample.Record, w []float64) {
	p, err := Positions(m.other(), x)
	if err != nil {
		for i := range w {
			w[i] = math.NaN()
		}
		return
	}
	for i := range w {
		w[i] = (1 - m.P) * p[i]
	}
	w[0] += m.P
}

// String returns "Mix(P)", or "Mix(P, Else)" when Else is set.
func (m Mix) String() string {
	if m.Else == nil {
		return fmt.Sprintf("Mix(%g)", m.P)
	}
	return fmt.Sprintf("Mix(%g, %v)", m.P, m.Else)
}

// Positions returns p_pos^x: p's weights for x, normalised.
func Positions(p Proposal, x *sample.Record) ([]float64, error) {
	n := len(x.Tokens)
	if n == 0 {
		return nil, errors.New("mcmc: empty record")
	}
	w := make([]float64, n)
	p.Weights(x, w)
	sum := 0.0
	for i, v := range w {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("mcmc: %T weight %v at position %d", p, v, i)
		}
		sum += v
	}
	if !(sum > 0) {
		return nil, fmt.Errorf("mcmc: %T gives every position weight 0", p)
	}
	for i := range w {
		w[i] /= sum
	}
	return w, nil
}

// Components returns p's kernel components and their probabilities: p
// alone with probability 1 unless it implements Kernels, in which case
// nested mixtures are flattened.
func Components(p Proposal) ([]float64, []Proposal, error) {
	k, ok := p.(Kernels)
	if !ok {
		return []float64{1}, []Proposal{p}, nil
	}
	w, ps := k.Kernels()
	if len(w) != len(ps) || len(w) == 0 {
		return nil, nil, fmt.Errorf("mcmc: %T: %d kernel weights for %d kernels", p, len(w), len(ps))
	}
	sum := 0.0
	for _, v := range w {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, fmt.Errorf("mcmc: %T: kernel weight %v", p, v)
		}
		sum += v
	}
	if !(sum > 0) {
		return nil, nil, fmt.Errorf("mcmc: %T: kernel weights sum to 0", p)
	}
	var (
		outW []float64
		outP []Proposal
	)
	for i, c := range ps {
		cw, cp, err := Components(c)
		if err != nil {
			return nil, nil, err
		}
		for j := range cw {
			outW = append(outW, w[i]/sum*cw[j])
			outP = append(outP, cp[j])
		}
	}
	return outW, outP, nil
}
