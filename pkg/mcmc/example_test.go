package mcmc_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/gasplab/gasp/pkg/exact"
	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/sample"
)

// Tail resamples only the last N tokens, restarting with probability R so
// that the chain still converges.
type Tail struct {
	N int
	R float64
}

func (t Tail) Weights(x *sample.Record, w []float64) {
	n := len(w)
	lo := max(0, n-t.N)
	for i := lo; i < n; i++ {
		w[i] = (1 - t.R) / float64(n-lo)
	}
	w[0] += t.R
}

// A user-defined proposal, run on a toy problem whose exact distributions
// are known.
func Example_proposal() {
	toys, _ := exact.Toys()
	toy := toys[0] // "skew": root ::= "0" | "1"+
	cfg := mcmc.Config{Sample: toy.Config, Proposal: Tail{N: 2, R: 0.2}, Steps: 10}
	res, err := mcmc.Run(toy.Model, toy.Prompt, 2000, cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	lang, _ := exact.Enumerate(toy.Model, toy.Prompt, toy.Config, 1000)
	dist, _ := lang.Chain(cfg.Proposal, 10)
	fmt.Printf("exact TV to P^G: GCD %.2f, MCMC(10) %.2f\n", exact.TV(dist[0], lang.Target), exact.TV(dist[10], lang.Target))
	fmt.Printf("P(\"0\"): GCD %.2f, MCMC(10) %.2f, P^G %.2f\n", dist[0][0], dist[10][0], lang.Target[0])
	fmt.Printf("chains agree: %v\n", lang.Test(res.Final(10), dist[10]).P > 1e-4)
	// Output:
	// exact TV to P^G: GCD 0.45, MCMC(10) 0.19
	// P("0"): GCD 0.06, MCMC(10) 0.24, P^G 0.42
	// chains agree: true
}
