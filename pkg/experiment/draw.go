package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/runs"
	"github.com/gasplab/gasp/pkg/sample"
)

// Drawn is what run Run of a method left at step K.
type Drawn struct {
	Run, K     int
	Rec        *sample.Record
	Accepted   []bool // MCMC: acceptance of steps 1…K
	Evals      int    // LM evaluations of the run up to this record
	Rejections int    // exact methods: attempts rejected before this sample
	// Proposal is, for MCMC at K ≥ 1, step K (its proposal, accepted or
	// not); nil otherwise.
	Proposal *mcmc.Step
}

// Record returns d as the run store keeps it: run number run of task and
// method, drawn with seed after prompt, its text decoded by decode,
// elapsed ms after the run's start. The proposal is not included (see
// ProposalRecord).
func (d Drawn) Record(task, method string, run int, seed uint64, prompt []int,
	decode func([]int) (string, error), elapsed float64) (runs.Record, error) {
	ids, eos := SplitEOS(d.Rec)
	text, err := decode(ids)
	if err != nil {
		return runs.Record{}, err
	}
	return runs.Record{
		Schema: runs.Schema, Task: task, Method: method, K: d.K, Run: run, Seed: seed,
		PromptIDs: prompt, IDs: ids, EOS: eos, Text: text,
		LogP: d.Rec.LogProb(), LogPGCD: d.Rec.LogQProb(), Valid: d.Rec.Valid(), Status: d.Rec.Status.String(),
		Accepted: d.Accepted, Evals: int64(d.Evals), Rejections: int64(d.Rejections), ElapsedMS: elapsed,
	}, nil
}

// DrawOptions say how much a method draws.
type DrawOptions struct {
	K      int          // MCMC steps; ASAp samples
	Budget int          // rejection, cars, ars, rsft: most attempts per run
	Trie   *sample.Trie // cars, ars: the trie to learn in (nil: a new one)
	// MCMCStats, if not nil, receives the chains' statistics (MCMC only).
	MCMCStats *mcmc.Stats
}

// Draw runs method meth once per random source, all runs in one batch: run
// i on row i with rands[i] (a nil source leaves its row idle, except for
// SMC, which batches only the runs it has). It returns every record the
// runs leave: one per run at k = 0 for gcd, rejection, exact methods and
// SMC; k = 0…K for MCMC; k = 1…K for ASAp.
func Draw(m lm.Model, scfg sample.Config, meth Method, prompt []int, o DrawOptions, rands []*rand.Rand) ([]Drawn, error) {
	var out []Drawn
	one := func(i int, r *sample.Record) {
		out = append(out, Drawn{Run: i, Rec: r, Evals: r.Evals, Rejections: r.Rejections})
	}
	switch meth.Kind {
	case KindGCD, KindRejection:
		var recs []*sample.Record
		var err error
		if meth.Kind == KindGCD {
			recs, _, err = scfg.GCDEach(m, prompt, rands)
		} else {
			recs, _, err = scfg.RejectionEach(m, prompt, o.Budget, rands)
		}
		if err != nil {
			return nil, err
		}
		for i, r := range recs {
			if r != nil {
				one(i, r)
			}
		}
	case KindExact:
		all, _, err := scfg.CARS(m, prompt, sample.RejectionSampler{Variant: meth.Variant, Trie: o.Trie, Budget: o.Budget}, 1, rands)
		if err != nil {
			return nil, err
		}
		for i, rs := range all {
			if len(rs) > 0 {
				one(i, rs[len(rs)-1])
			}
		}
	case KindSMC:
		return drawSMC(m, scfg, meth.SMC, prompt, rands)
	case KindASAp:
		all, _, err := scfg.ASApEach(m, prompt, o.K, rands)
		if err != nil {
			return nil, err
		}
		for i, rs := range all {
			ev := 0
			for j, r := range rs {
				ev += r.Evals
				out = append(out, Drawn{Run: i, K: j + 1, Rec: r, Evals: ev})
			}
		}
	case KindMCMC:
		res, err := mcmc.RunEach(m, prompt, mcmc.Config{Sample: scfg, Proposal: meth.Proposal, Steps: o.K}, rands)
		if err != nil {
			return nil, err
		}
		if o.MCMCStats != nil {
			*o.MCMCStats = res.Stats
		}
		for i := range res.Chains {
			ch := &res.Chains[i]
			if rands[i] == nil {
				continue
			}
			for k := 0; k <= o.K; k++ {
				acc := make([]bool, k)
				for s := range acc {
					acc[s] = ch.Steps[s].Accepted
				}
				d := Drawn{Run: i, K: k, Rec: ch.At(k), Accepted: acc, Evals: ch.EvalsAt(k)}
				if k >= 1 {
					d.Proposal = &ch.Steps[k-1]
				}
				out = append(out, d)
			}
		}
	default:
		return nil, fmt.Errorf("unknown method %q", meth.Name)
	}
	return out, nil
}

// drawSMC runs SMC for the runs with a source and keeps, per run, one
// particle drawn ∝ its weight (the run's last particle, not valid, when
// every weight is zero); its Evals are those of all the run's particles.
func drawSMC(m lm.Model, scfg sample.Config, opt sample.SMCOptions, prompt []int, rands []*rand.Rand) ([]Drawn, error) {
	var ids []int
	var rs []*rand.Rand
	for i, r := range rands {
		if r != nil {
			ids = append(ids, i)
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return nil, nil
	}
	res, _, err := scfg.SMC(m, prompt, opt, rs)
	if err != nil {
		return nil, err
	}
	out := make([]Drawn, len(res))
	for j, r := range res {
		rec := r.Pick(rs[j])
		if rec == nil {
			rec = r.Particles[len(r.Particles)-1]
		}
		out[j] = Drawn{Run: ids[j], Rec: rec, Evals: r.Evals}
	}
	return out, nil
}

// LoadTrie reads the trie saved at path, or returns a new one when there is
// none.
func LoadTrie(path string) (*sample.Trie, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return sample.NewTrie(), nil
	}
	if err != nil {
		return nil, err
	}
	t, err := sample.ReadTrie(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// SaveTrie writes t to path atomically (a new file renamed over the old),
// so that a killed run leaves the old trie or the new one.
func SaveTrie(path string, t *sample.Trie) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeAtomic(path, func(w io.Writer) error {
		_, err := t.WriteTo(w)
		return err
	})
}

// writeAtomic writes a file through write into a temporary file of path's
// directory, then renames it to path.
func writeAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// TriePath is where an experiment's store keeps the trie of an adaptive
// method on a task: <store>/tries/<method>/<task>.trie.
func TriePath(store, method, task string) string {
	return filepath.Join(store, "tries", method, filepath.FromSlash(task)+".trie")
}
