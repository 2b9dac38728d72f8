package analysis_test

import (
	"fmt"
	"math"

	"github.com/gasplab/gasp/pkg/analysis"
	"github.com/gasplab/gasp/pkg/runs"
)

// The paper's KL estimator: P renormalised over every distinct valid sample
// of a task is the reference, and each method's empirical distribution is
// measured against it. Real records come from a run store (analysis.Load).
func ExampleReference() {
	rec := func(method string, run int, id int, p float64) runs.Record {
		return runs.Record{Task: "t", Method: method, Run: run, IDs: []int{id}, EOS: runs.NoEOS,
			LogP: math.Log(p), Valid: true, Status: runs.StatusComplete}
	}
	// Two sentences with P 0.3 and 0.1: the reference gives them 3/4 and 1/4,
	// so GCD's 1/4, 3/4 is ½ ln 3 away and MCMC's 3/4, 1/4 exact.
	gcd := []runs.Record{rec("gcd", 0, 1, 0.3), rec("gcd", 1, 2, 0.1), rec("gcd", 2, 2, 0.1), rec("gcd", 3, 2, 0.1)}
	mcmc := []runs.Record{rec("mcmc", 0, 1, 0.3), rec("mcmc", 1, 1, 0.3), rec("mcmc", 2, 1, 0.3), rec("mcmc", 3, 2, 0.1)}
	ref := analysis.NewReference(append(append([]runs.Record{}, gcd...), mcmc...))
	for _, recs := range [][]runs.Record{gcd, mcmc} {
		kl, err := ref.KL(recs)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s KL %.4f\n", recs[0].Method, kl)
	}
	// Output:
	// gcd KL 0.5493
	// mcmc KL 0.0000
}
