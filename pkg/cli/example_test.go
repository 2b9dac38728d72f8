package cli_test

import (
	"os"

	"github.com/gasplab/gasp/pkg/cli"
	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/sample"
)

// A program of one's own: gasp's every command, plus a method of one's own that "gasp methods" lists,
// "gasp sample --method mcmc-floor" and "gasp experiment run" draw and "gasp analyze" tables and plots.
// (Not run here: it would run the command line of the test binary.)
func Example() {
	floor := mcmc.ProposalFunc(func(x *sample.Record, w []float64) {
		for i := range w {
			w[i] = 0.1 + x.Entropy[i]
		}
	})
	methods := map[string]method.Method{"mcmc-floor": method.MCMC{Proposal: floor}}
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Options{Methods: methods}))
}
