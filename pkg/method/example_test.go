package method_test

import (
	"fmt"

	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/sample"
)

// Built-in methods come from their names; a user's is a value, most often
// MCMC with a proposal written as one function. Either runs through
// experiment.Task.Draw and the grid (experiment.Options.Methods).
func Example() {
	mix, err := method.Parse("mcmc-mix-0.25")
	if err != nil {
		fmt.Println(err)
		return
	}
	last := mcmc.ProposalFunc(func(x *sample.Record, w []float64) { w[len(w)-1] = 1 })
	mine := method.MCMC{Proposal: last}
	for _, m := range []method.Method{mix, mine, method.ASAp{}, method.SMC{Options: sample.SMCOptions{Particles: 4}}} {
		lo, hi := m.Steps().Range(10)
		fmt.Printf("%T: records at k = %d…%d, %d completions a run\n", m, lo, hi, method.Units(m, 10))
	}
	// Output:
	// method.MCMC: records at k = 0…10, 11 completions a run
	// method.MCMC: records at k = 0…10, 11 completions a run
	// method.ASAp: records at k = 1…10, 10 completions a run
	// method.SMC: records at k = 0…0, 4 completions a run
}
