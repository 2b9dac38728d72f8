package cli

import (
	"fmt"
	"io"

	"github.com/gasplab/gasp/pkg/experiment"
)

func runExperimentMerge(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("gasp experiment merge", "gasp experiment merge --into DIR SHARD_STORE...", `
Merges the run stores that the shards of one experiment wrote separately
("gasp experiment run --shard i/n --store SHARD_STORE CONFIG", as the Slurm
and Kubernetes jobs of deploy/ do) into the store DIR, creating it if needed:
DIR then holds what an unsharded run writes, record for record (elapsed_ms
aside), each (task, method) by run and k. The shards must record the same
sampling settings and grid (experiment.json), and DIR, if it records any,
the same settings and a grid within theirs: a store's grid may grow, never
shrink. Each SHARD_STORE is a directory. A sample found in two stores, or
already in DIR, must be the same record in both; it is written once. Merging
again appends only what is missing, so it may follow shards as they finish.`, stdout, stderr)
	into := cl.String("into", "", "the merged run store directory (e.g. mcmc/<name>)")
	pos, done, code := cl.parse(args)
	if done {
		return code
	}
	if *into == "" || len(pos) == 0 {
		return cl.usageError("want --into DIR and at least one shard store")
	}
	sum, err := experiment.Merge(*into, pos)
	if err != nil {
		return cl.fail(err)
	}
	fmt.Fprintf(stderr, "gasp experiment merge: %d stores, %d records appended to %s (%d already there)\n",
		sum.Stores, sum.Records, *into, sum.Existing)
	return 0
}
