package sample_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gasplab/gasp/pkg/exact"
	"github.com/gasplab/gasp/pkg/sample"
)

// BenchmarkSamplers measures the samplers' own work, over a toy's exact
// model whose evaluation costs next to nothing: the lockstep loop, the
// distributions, the grammar masks and the records.
func BenchmarkSamplers(b *testing.B) {
	toys, err := exact.Toys()
	if err != nil {
		b.Fatal(err)
	}
	toy := toys[1] // utf8: long runs, a hashed model
	m, p, c := toy.Model, toy.Prompt, toy.Config
	rands := func() []*rand.Rand {
		out := make([]*rand.Rand, 64)
		for i := range out {
			out[i] = sample.NewRand(uint64(i))
		}
		return out
	}
	run := map[string]func() error{
		"gcd": func() error { _, _, err := c.GCDEach(m, p, rands()); return err },
		"rejection": func() error {
			_, _, err := c.RejectionEach(m, p, 20, rands())
			return err
		},
		"asap": func() error { _, _, err := c.ASApEach(m, p, 8, rands()); return err },
		"cars": func() error {
			rs := sample.RejectionSampler{Variant: sample.CARS}
			_, _, err := c.CARS(m, p, rs, 4, rands())
			return err
		},
		"smc": func() error {
			_, _, err := c.SMC(m, p, sample.SMCOptions{Particles: 8, ESS: 0.5}, rands()[:8])
			return err
		},
	}
	for _, name := range []string{"gcd", "rejection", "asap", "cars", "smc"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if err := run[name](); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
