package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/gasplab/gasp/pkg/analysis"
	"github.com/gasplab/gasp/pkg/experiment"
)

func runAnalyzeTrue(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("gasp analyze-true", "gasp analyze-true [--store DIR] [--exact DIR] [--method M] [--out DIR] [--min-exact N] [--resamples N] [--seed S]", `
Measures every method of experiments' run stores (default mcmc/quick and
mcmc/quick-smc, where SMC ran on the tasks with enough exact samples)
against exact samples of P^G from another store (default mcmc/quick-true,
written by "gasp experiment run experiments/quick-true.json"): per task and
method at every k, TV on the observed support and KL with add-one smoothing
of the exact distribution, with 95 % bootstrap intervals, beside the
paper's proxy KL (to P renormalised over the observed samples), and whether
the proxy ranks the methods as the true distance does. Tasks with fewer
than --min-exact exact samples report only CARS's acceptance rate. Writes
README.md, true.csv, tasks.csv and fig_true_vs_evals.svg to --out (default
analysis/quick-true), byte for byte the same for the same stores and flags.`, stdout, stderr)
	store := cl.String("store", "", "run stores of the methods, comma-separated (default: mcmc/quick,mcmc/quick-smc of the repository)")
	exactStore := cl.String("exact", "", "run store of the exact samples (default: mcmc/quick-true)")
	method := cl.String("method", "cars", "the exact method in --exact")
	out := cl.String("out", "", "output directory (default: analysis/quick-true)")
	minExact := cl.Int("min-exact", 100, "fewest exact samples for a task's P^G to count as estimated")
	resamples := cl.Int("resamples", 500, "bootstrap resamples")
	seed := cl.Uint64("seed", 1, "bootstrap seed")
	pos, done, code := cl.parse(args)
	if done {
		return code
	}
	if len(pos) != 0 || *minExact < 1 {
		return cl.usageError("no arguments; --min-exact must be positive")
	}
	if *resamples < 1 || *resamples > analysis.MaxResamples {
		return cl.usageError("--resamples must be in [1, %d], got %d", analysis.MaxResamples, *resamples)
	}
	root, err := experimentRoot()
	if err != nil {
		return cl.fail(err)
	}
	if *store == "" {
		*store = filepath.Join(root, "mcmc", "quick") + "," + filepath.Join(root, "mcmc", "quick-smc")
	}
	for p, def := range map[*string]string{exactStore: "mcmc/quick-true", out: "analysis/quick-true"} {
		if *p == "" {
			*p = filepath.Join(root, filepath.FromSlash(def))
		}
	}
	data, err := analysis.LoadDirsWith(experiment.StoreOptions, strings.Split(*store, ",")...)
	if err != nil {
		return cl.fail(fmt.Errorf("--store: %w", err))
	}
	exact, err := analysis.LoadDirsWith(experiment.StoreOptions, strings.Split(*exactStore, ",")...)
	if err != nil {
		return cl.fail(fmt.Errorf("--exact: %w", err))
	}
	rep, err := analysis.AnalyzeTrue(data, exact, *method, analysis.TrueOptions{Resamples: *resamples, Seed: *seed, MinExact: *minExact})
	if err != nil {
		return cl.fail(fmt.Errorf("--method %s, --exact %s: %w", *method, *exactStore, err))
	}
	var names []string
	for _, d := range strings.Split(*store, ",") {
		names = append(names, filepath.Base(d))
	}
	title := fmt.Sprintf("The true distance to P^G: %s against %s samples of %s", strings.Join(names, " + "), *method, filepath.Base(*exactStore))
	if err := rep.WriteDir(*out, title); err != nil {
		return cl.fail(err)
	}
	fmt.Fprintf(stderr, "gasp analyze-true: %d tasks: wrote %s\n", len(rep.Tasks), *out)
	return 0
}
