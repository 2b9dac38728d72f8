package exact_test

import (
	"fmt"

	"github.com/gasplab/gasp/pkg/exact"
	"github.com/gasplab/gasp/pkg/mcmc"
)

// How far GCD is from P^G on a small problem, and how MCMC closes the gap,
// computed exactly: no sampling error.
func Example() {
	toys, err := exact.Toys()
	if err != nil {
		fmt.Println(err)
		return
	}
	lang, err := toys[0].Lang(100000)
	if err != nil {
		fmt.Println(err)
		return
	}
	dists, err := lang.Chain(mcmc.Uniform{}, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %d sentences\n", toys[0].Name, len(lang.Sentences))
	fmt.Printf("TV(GCD, P^G) = %.3f\n", exact.TV(lang.GCD, lang.Target))
	for _, k := range []int{1, 10} {
		fmt.Printf("TV(MCMC-Uniform(%d), P^G) = %.3f\n", k, exact.TV(dists[k], lang.Target))
	}
	// Output:
	// skew: 63 sentences
	// TV(GCD, P^G) = 0.451
	// TV(MCMC-Uniform(1), P^G) = 0.342
	// TV(MCMC-Uniform(10), P^G) = 0.190
}
