package sample_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/gasplab/gasp/pkg/exact"
	"github.com/gasplab/gasp/pkg/sample"
)

// GCD and rejection sampling on a toy problem whose grammar is
// root ::= "0" | "1"+ and whose model likes to start with 1 but rarely
// ends a run of 1s: GCD, which masks each step without looking ahead, puts
// about 6 % on "0", while rejection sampling draws from P^G (under the
// cap), which puts about 40 % there.
func Example() {
	toys, err := exact.Toys()
	if err != nil {
		panic(err)
	}
	toy := toys[0] // skew
	// The grammar (with the vocabulary) and the length cap:
	cfg := sample.Config{Masker: toy.Config.Masker, MaxNew: 6}
	share := func(recs []*sample.Record) string {
		zero := 0
		for _, r := range recs {
			if r.Text(toy.Vocab) == "0</s>" {
				zero++
			}
		}
		return fmt.Sprintf("%.0f %%", 100*float64(zero)/float64(len(recs)))
	}
	gcd, st, err := cfg.GCD(toy.Model, toy.Prompt, 2000, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	fmt.Printf("GCD: %d of %d valid, \"0\": %s\n", st.Complete, st.Samples, share(gcd))
	rej, st, err := cfg.Rejection(toy.Model, toy.Prompt, sample.RejectionOptions{Want: 2000, Budget: 100000, Rows: 64}, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		panic(err)
	}
	fmt.Printf("rejection: %d accepted of %d attempts, \"0\": %s\n", len(rej), st.Samples, share(rej))
	// Output:
	// GCD: 1899 of 2000 valid, "0": 6 %
	// rejection: 2000 accepted of 18521 attempts, "0": 41 %
}
