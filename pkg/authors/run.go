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
// MaxRunFileBytes; firstRun is the run number of its first run. It returns
// the file's records and the run number after them: an MCMC file is one
// chain (one run, k = 0…n); a rejection-type file is one invocation of the
// authors' sampler, whose attempts become runs (rejectionRecords). Its
// errors do not name the file (the caller's do), but for an *infile.Error.
func readRun(path, task, style string, firstRun int, eos []int) ([]runs.Record, int, error) {
	b, err := infile.Read(path, MaxRunFileBytes)
	if err != nil {
		return nil, firstRun, err
	}
	method := styleMethods[style]
	if chainStyles[style] {
		var f struct {
			Steps *[]mcmcStep `json:"steps"`
		}
		if err := decode(b, &f); err != nil {
			return nil, firstRun, err
		}
		if f.Steps == nil {
			return nil, firstRun, errors.New(`no "steps"`)
		}
		recs, err := chainRecords(*f.Steps, task, method, firstRun, eos)
		return recs, firstRun + 1, err
	}
	var f struct {
		Steps     *[]*sample `json:"steps"`
		Successes *[]bool    `json:"successes"`
	}
	if err := decode(b, &f); err != nil {
		return nil, firstRun, err
	}
	if f.Steps == nil || f.Successes == nil {
		return nil, firstRun, errors.New(`want "steps" and "successes"`)
	}
	return rejectionRecords(*f.Steps, *f.Successes, task, method, firstRun, eos)
}

// rejectionRecords turns one rejection-type file into records. The authors'
// writer (cars/cars.py, CARS.get_sample) appends to "successes" one entry per
// attempt and to "steps" the sample of each successful attempt only, and stops
// after a number of successes (100 in their runs) or attempts (the file
// name's n<K>): steps pair with the true entries of successes, in order. A
// failed attempt's tokens are not kept.
//
// The records follow gasp's own methods: for rejection (rs), one run per
// attempt, the sample or a rejected record without one, as a store of
// rejection runs with budget 1 gives the acceptance rate; for cars, ars and
// rsft, one run per sample with Record.Rejections the failed attempts
// before it, and a last rejected run, without a sample, for the attempts
// after the last success.
func rejectionRecords(steps []*sample, successes []bool, task, method string, run int, eos []int) ([]runs.Record, int, error) {
	if n := countTrue(successes); n != len(steps) {
		return nil, run, fmt.Errorf("%d successful attempts but %d samples in \"steps\" (one per success)", n, len(steps))
	}
	rejected := func(failures int64) runs.Record {
		return runs.Record{Schema: runs.Schema, Task: task, Method: method, Run: run, PromptIDs: []int{}, IDs: []int{},
			EOS: runs.NoEOS, Status: runs.StatusRejected, Rejections: failures}
	}
	perAttempt := method == styleMethods["rs"] // a run per attempt; else per sample, failures counted
	var recs []runs.Record
	var failures int64
	next := 0
	for _, ok := range successes {
		switch {
		case ok:
			s := steps[next]
			next++
			if err := s.check(); err != nil {
				return nil, run, fmt.Errorf("sample %d: %w", next-1, err)
			}
			r := record(s, task, method, 0, run, eos)
			if !perAttempt {
				r.Rejections = failures
			}
			recs, failures = append(recs, r), 0
			run++
		case perAttempt:
			recs = append(recs, rejected(0))
			run++
		default:
			failures++
		}
	}
	if failures > 0 {
		recs = append(recs, rejected(failures))
		run++
	}
	return recs, run, nil
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
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
