package fuzz

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/runs"
)

// DefaultDepth returns the derivation depth of the grammar baseline for a
// target (see grammar.Sample): deep enough for nested elements and
// statements, shallow enough to keep samples to a few kilobytes.
func DefaultDepth(target string) (int, error) {
	switch target {
	case "xml":
		return 16, nil
	case "sql":
		return 12, nil
	}
	return 0, fmt.Errorf("unknown fuzz target %q (want xml or sql)", target)
}

// MaxSeedLen bounds a grammar seed: AFL++ reads at most 1 MB of a seed
// (MAX_FILE), and at a large depth a grammar's sentences can grow
// exponentially.
const MaxSeedLen = 1 << 20

// GrammarSeeds returns n random derivations of g (grammar.SampleLimit with
// the given depth, of at most MaxSeedLen bytes), the Grammarinator-style
// baseline: no language model. Sample i uses the random source PCG(seed,
// i), so the seeds do not depend on n. A sentence longer than MaxSeedLen is
// an error naming it.
func GrammarSeeds(g *grammar.Grammar, n int, seed uint64, depth int) ([][]byte, error) {
	out := make([][]byte, n)
	for i := range out {
		var err error
		if out[i], err = grammar.SampleLimit(g, rand.New(rand.NewPCG(seed, uint64(i))), depth, MaxSeedLen); err != nil {
			return nil, fmt.Errorf("sentence %d: %w", i, err)
		}
	}
	return out, nil
}

// WriteSeeds writes samples to dir as seed-NNNN.EXT files.
func WriteSeeds(dir, ext string, samples [][]byte) error {
	_, err := writeSeeds(dir, ext, samples)
	return err
}

// writeSeeds is WriteSeeds, returning the paths of the files.
func writeSeeds(dir, ext string, samples [][]byte) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	paths := make([]string, len(samples))
	for i, s := range samples {
		paths[i] = filepath.Join(dir, fmt.Sprintf("seed-%04d%s", i, ext))
		if err := os.WriteFile(paths[i], s, 0o644); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// ValidityResult counts how many samples the library accepts.
type ValidityResult struct {
	Target  string `json:"target"`
	Version string `json:"version"`
	Samples int    `json:"samples"`
	// Accepted: for xml, xmllint --noout --nonet --noent reports no error
	// (well-formed, entities resolved); for sql, testfixture runs the
	// script without a Tcl syntax error (see TclSyntaxError) or a crash or
	// timeout.
	Accepted int `json:"accepted"`
	// Completed (sql only): the script ran to finish_test.
	Completed int `json:"completed,omitempty"`
	// Strict: for xml, also valid against the DTD (--valid); for sql, also
	// no failing test (expected results all match).
	Strict   int     `json:"strict"`
	Fraction float64 `json:"fraction"`
	StrictFr float64 `json:"strict_fraction"`
	// Errors counts the first error line of rejected samples, normalised.
	Errors map[string]int `json:"errors,omitempty"`
}

var (
	finishRe    = regexp.MustCompile(`(?m)^(\d+) errors out of \d+ tests`)
	abortRe     = regexp.MustCompile(`(?m)^\S*testfixture: (.*)$`)
	tclSyntaxRe = regexp.MustCompile(`invalid command name|wrong # args|missing close-|missing "|extra characters after close-|unmatched open|syntax error in expression|can't read|list element in (braces|quotes) followed by|invalid bareword`)
	locationRe  = regexp.MustCompile(`^[^:]*:\d+: `)
)

// Validity runs each sample through the target's AFL++ build (as a plain
// program) in a sandbox under work and counts the accepted ones.
func (tc *Toolchain) Validity(ctx context.Context, target string, samples [][]byte, work string) (*ValidityResult, error) {
	t, err := tc.Target(target)
	if err != nil {
		return nil, err
	}
	work, err = filepath.Abs(work)
	if err != nil {
		return nil, err
	}
	in := filepath.Join(work, "in")
	if err := WriteSeeds(in, t.Ext, samples); err != nil {
		return nil, err
	}
	files, err := seedFiles(in)
	if err != nil {
		return nil, err
	}
	res := &ValidityResult{Target: target, Version: t.Version, Samples: len(files), Errors: map[string]int{}}
	if target == "xml" {
		wf := *t
		wf.wellFormed = true
		wfRes, err := tc.runBatch(ctx, &wf, t.AFLBin, work, files, true)
		if err != nil {
			return nil, err
		}
		valid, err := tc.runBatch(ctx, t, t.AFLBin, work, files, false)
		if err != nil {
			return nil, err
		}
		for i := range files {
			if wfRes[i].code == 0 {
				res.Accepted++
				if valid[i].code == 0 {
					res.Strict++
				}
			} else {
				res.Errors[firstLine(wfRes[i].out)]++
			}
		}
	} else {
		execs, err := tc.runBatch(ctx, t, t.AFLBin, work, files, true)
		if err != nil {
			return nil, err
		}
		for _, e := range execs {
			if m := finishRe.FindSubmatch(e.out); m != nil {
				res.Accepted++
				res.Completed++
				if string(m[1]) == "0" {
					res.Strict++
				}
				continue
			}
			if e.code == 124 || e.code > 128 {
				res.Errors[fmt.Sprintf("exit status %d", e.code)]++
				continue
			}
			msg := "(no error message)"
			if m := abortRe.FindSubmatch(e.out); m != nil {
				msg = normalise(m[1])
			}
			if TclSyntaxError(msg) {
				res.Errors[msg]++
			} else {
				res.Accepted++ // aborted by an SQL or runtime error
			}
		}
	}
	if res.Samples > 0 {
		res.Fraction = float64(res.Accepted) / float64(res.Samples)
		res.StrictFr = float64(res.Strict) / float64(res.Samples)
	}
	os.RemoveAll(in)
	return res, nil
}

// TclSyntaxError reports whether an error message of testfixture is a Tcl
// syntax error (a malformed script rather than an SQL error).
func TclSyntaxError(msg string) bool {
	return tclSyntaxRe.MatchString(msg)
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return normalise(line)
}

func normalise(line []byte) string {
	s := locationRe.ReplaceAllString(string(line), "")
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// StoreSeeds returns the texts of the first n valid samples of (task,
// method) at step k in a run store, in run order, and how many valid
// samples the store has there: the seeds of a language-model sampler. k is
// the record's step index (mcmc/README.md): the number of MH steps for
// MCMC, the sample number for ASAp, 0 for GCD. Fewer than n seeds is not an
// error; none is.
func StoreSeeds(st *runs.Store, task, method string, k, n int) ([][]byte, int, error) {
	recs, err := st.Records(task, method)
	if err != nil {
		return nil, 0, err
	}
	var valid []runs.Record
	for _, r := range recs {
		if r.K == k && r.Valid {
			valid = append(valid, r)
		}
	}
	if len(valid) == 0 {
		return nil, 0, fmt.Errorf("%s: no valid samples of task %q, method %q at k = %d (of %d records)",
			st.Path(task, method), task, method, k, len(recs))
	}
	sort.SliceStable(valid, func(i, j int) bool { return valid[i].Run < valid[j].Run })
	var out [][]byte
	for _, r := range valid[:min(n, len(valid))] {
		out = append(out, []byte(r.Text))
	}
	return out, len(valid), nil
}
