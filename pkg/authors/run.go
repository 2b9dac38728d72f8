package authors

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gasplab/gasp/pkg/infile"
	"github.com/gasplab/gasp/pkg/runs"
)

// MaxRunFileBytes bounds a run file of the authors' logs: the largest has a
// few MB.
const MaxRunFileBytes = 256 << 20

// readRun reads one run file of a style, a regular file of at most
// MaxRunFileBytes, and returns its records: k = 0…n for an MCMC chain of n
// steps, k = 1…n for a rejection-type run. Its errors do not name the file
// (the caller's do), but for an *infile.Error.
func readRun(path, task, style string, run int, eos []int) ([]runs.Record, error) {
	b, err := infile.Read(path, MaxRunFileBytes)
	if err != nil {
		return nil, err
	}
	method := Methods[style]
	if strings.HasPrefix(method, "mcmc-") {
		var f struct {
			Steps *[]mcmcStep `json:"steps"`
		}
		if err := decode(b, &f); err != nil {
			return nil, err
		}
		if f.Steps == nil {
			return nil, errors.New(`no "steps"`)
		}
		return chainRecords(*f.Steps, task, method, run, eos)
	}
	var f struct {
		Steps     []*sample `json:"steps"`
		Successes []bool    `json:"successes"`
	}
	if err := decode(b, &f); err != nil {
		return nil, err
	}
	steps := f.Steps
	if len(f.Successes) != len(steps) || len(steps) == 0 {
		return nil, fmt.Errorf("%d steps and %d successes", len(steps), len(f.Successes))
	}
	var recs []runs.Record
	for i, s := range steps {
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
		r := record(s, task, method, i+1, run, eos)
		if !f.Successes[i] {
			r.Valid, r.Status = false, runs.StatusRejected
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// chainRecords returns the records k = 0…n of an MCMC chain of n steps,
// checking that each step's current state is the outcome of the step
// before it.
func chainRecords(steps []mcmcStep, task, method string, run int, eos []int) ([]runs.Record, error) {
	if len(steps) == 0 {
		return nil, errors.New("no steps")
	}
	for i, s := range steps {
		for _, x := range []struct {
			name string
			s    *sample
		}{{"current", s.Current}, {"proposal", s.Proposal}} {
			if err := x.s.check(); err != nil {
				return nil, fmt.Errorf("step %d: %s: %w", i, x.name, err)
			}
		}
		if s.Accepted == nil {
			return nil, fmt.Errorf("step %d: missing accepted", i)
		}
	}
	outcome := func(i int) *sample { // the state after step i (0-based)
		if *steps[i].Accepted {
			return steps[i].Proposal
		}
		return steps[i].Current
	}
	for i := 1; i < len(steps); i++ {
		if !slices.Equal(steps[i].Current.TokenIDs, outcome(i-1).TokenIDs) {
			return nil, fmt.Errorf("step %d: current is not the outcome of step %d (accepted %v)", i, i-1, *steps[i-1].Accepted)
		}
	}
	var recs []runs.Record
	var acc []bool
	for k := 0; k <= len(steps); k++ {
		x := outcome(len(steps) - 1)
		if k < len(steps) {
			x = steps[k].Current
		}
		r := record(x, task, method, k, run, eos)
		if k > 0 {
			y := steps[k-1]
			acc = append(acc, *y.Accepted)
			r.Accepted = slices.Clone(acc)
			p := record(y.Proposal, task, method, k, run, eos)
			r.Proposal = &runs.Proposal{IDs: p.IDs, EOS: p.EOS, LogP: p.LogP, LogPGCD: p.LogPGCD,
				Valid: p.Valid, Status: p.Status, Accepted: *y.Accepted}
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// record converts a sample: a final token in eos is the record's EOS (the
// sample is complete and valid); without one it is capped.
func record(s *sample, task, method string, k, run int, eos []int) runs.Record {
	ids, toks := s.TokenIDs, s.Tokens
	r := runs.Record{Schema: runs.Schema, Task: task, Method: method, K: k, Run: run,
		PromptIDs: []int{}, EOS: runs.NoEOS, LogP: s.LogP.v, LogPGCD: s.LogPGCD.v, Status: runs.StatusCapped}
	if n := len(ids); n > 0 && slices.Contains(eos, ids[n-1]) {
		r.EOS, ids, toks = ids[n-1], ids[:n-1], toks[:n-1]
		r.Valid, r.Status = true, runs.StatusComplete
	}
	r.IDs = slices.Clone(ids)
	r.Text = strings.Join(toks, "")
	return r
}
