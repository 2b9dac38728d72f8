package cli

import (
	"fmt"
	"io"

	"github.com/gasplab/gasp/pkg/runs"
)

func runExperimentCompact(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("gasp experiment compact", "gasp experiment compact STORE...", `
Seals the records of each run store STORE (a directory such as mcmc/<name>):
every <task>/<method>.jsonl moves into <task>/<method>.jsonl.gz, gzip'd JSONL
that every reader of a store (analyze, analyze-true, merge, a resumed run)
reads as before, so that a paper-scale store takes a tenth of the space or
less in git. A later run appends to a new <method>.jsonl beside it, and
compacting again seals that too. Compaction takes the store's lock and
refuses a store that another process is writing (a shard of "gasp
experiment run"): compact once the run has ended. It may be killed at any
moment without losing or duplicating a record, and the same records always
seal to the same bytes.`, stdout, stderr)
	pos, done, code := cl.parse(args)
	if done {
		return code
	}
	if len(pos) == 0 {
		return cl.usageError("want at least one STORE")
	}
	for _, dir := range pos {
		st, err := runs.OpenReadOnly(dir) // fails on a store that does not exist, which Open would create
		if err != nil {
			return cl.fail(err)
		}
		st.Close()
		if st, err = runs.Open(dir); err != nil {
			return cl.fail(err)
		}
		stats, err := st.Compact()
		if cerr := st.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return cl.fail(err)
		}
		for _, w := range st.Warnings() {
			fmt.Fprintf(stderr, "gasp experiment compact: warning: %s\n", w)
		}
		fmt.Fprintf(stderr, "gasp experiment compact: %s: %d series sealed, %s → %s\n",
			dir, stats.Series, mib(stats.Before), mib(stats.After))
	}
	return 0
}

// mib formats a byte count in MiB.
func mib(n int64) string { return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20)) }
