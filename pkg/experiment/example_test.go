package experiment_test

import (
	"context"
	"fmt"
	"log"

	"github.com/gasplab/gasp/pkg/analysis"
	"github.com/gasplab/gasp/pkg/experiment"
	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/sample"
)

// A researcher's program: a new MCMC proposal, written as one function,
// run on a SyGuS task with the embedded model (100 MCMC samples: 100
// chains of one step), and the KL of MCMC(1) to P over the valid
// sentences the samples found. Registered in Options.Methods, the same
// method runs through the grid (Run) into a run store. The task and the
// embedded model are found from any working directory (TaskConfig.Dir,
// Model), and the task is named SLIA/lastname however it is spelled, so
// the program prints the same from anywhere.
func Example() {
	floor := mcmc.ProposalFunc(func(x *sample.Record, w []float64) {
		for i := range w {
			w[i] = 0.1 + x.Entropy[i] // cut where the grammar leaves a choice, and anywhere a little
		}
	})
	task := experiment.TaskConfig{Dir: "data/gad/SLIA/lastname", MaxNew: 24}
	recs, err := experiment.Sample(context.Background(), task, "mcmc-floor", method.MCMC{Proposal: floor}, experiment.Batch{Seed: 1, Size: 100, K: 1})
	if err != nil {
		log.Fatal(err)
	}
	rep, err := analysis.Analyze(analysis.Group(recs), analysis.Options{Resamples: 100, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d sentences; KL(MCMC(1) ‖ P over them) = %.2f\n", rep.Tasks[0].Size, rep.Tasks[0].Series[0].Points[1].KL)
	// Output: 68 sentences; KL(MCMC(1) ‖ P over them) = 10.44
}
