package fuzz

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/atomicfile"
	"github.com/gasplab/gasp/pkg/infile"
)

// A long campaign (5 trials of an hour per target and method) outlives a
// sitting, and a Slurm array runs its trials as separate jobs. So Run
// stores each finished trial in trial-N/trial.json beside what made it
// (a trialKey), and Options.Resume keeps the stored trials whose key is the
// run's, running only the others; Options.Only runs one trial alone.

// trialFile is the file, in a trial's directory, that stores the trial.
const trialFile = "trial.json"

// A trialKey is what a trial's result depends on besides its index: a
// stored trial is kept only where its key is the run's.
type trialKey struct {
	Target        string  `json:"target"`
	Version       string  `json:"version"`
	SeedsSHA256   string  `json:"seeds_sha256"` // of the seed files' names and contents, in order
	TimeSeconds   float64 `json:"time_seconds"`
	Snapshots     int     `json:"snapshots"`
	ExecTimeoutMs int     `json:"exec_timeout_ms"`
	DictSHA256    string  `json:"dict_sha256,omitempty"`
}

// A storedTrial is the content of a trial.json.
type storedTrial struct {
	Key   trialKey `json:"key"`
	Trial Trial    `json:"trial"`
}

// ErrTrialsPending is returned, wrapped, by Run when some trials are not
// stored yet (with Options.Only): coverage.json waits for all of them.
var ErrTrialsPending = errors.New("trials pending")

// newTrialKey returns the key of a run of target t on the seed files with
// the (defaulted) options.
func newTrialKey(t *Target, seeds []string, opts Options) (trialKey, error) {
	h := sha256.New()
	for _, s := range seeds {
		data, err := infile.Read(s, maxSeedBytes)
		if err != nil {
			return trialKey{}, err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.Base(s), len(data))
		h.Write(data)
	}
	k := trialKey{Target: t.Name, Version: t.Version, SeedsSHA256: hex.EncodeToString(h.Sum(nil)),
		TimeSeconds: opts.Time.Seconds(), Snapshots: opts.Snapshots, ExecTimeoutMs: t.Timeout}
	if opts.ExecTimeout > 0 {
		k.ExecTimeoutMs = int(opts.ExecTimeout.Milliseconds())
	}
	if opts.Dict != nil {
		d := sha256.Sum256(opts.Dict)
		k.DictSHA256 = hex.EncodeToString(d[:])
	}
	return k, nil
}

// loadTrial returns the trial stored in dir, if there is one; one stored
// with another key, or not readable, is an error that says what to do.
func loadTrial(dir string, key trialKey) (*Trial, bool, error) {
	path := filepath.Join(dir, trialFile)
	data, err := infile.Read(path, 64<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var st storedTrial
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, false, fmt.Errorf("%s: %v; remove it to run the trial again", path, err)
	}
	if st.Key != key {
		return nil, false, fmt.Errorf("%s was made by another run (%s); remove it, or give --out a new directory",
			path, keyDiff(st.Key, key))
	}
	return &st.Trial, true, nil
}

// keyDiff names the first field in which a stored key differs from the
// run's.
func keyDiff(stored, run trialKey) string {
	for _, f := range []struct {
		name string
		a, b any
	}{
		{"target", stored.Target, run.Target}, {"library version", stored.Version, run.Version},
		{"seed files", stored.SeedsSHA256, run.SeedsSHA256}, {"time", stored.TimeSeconds, run.TimeSeconds},
		{"snapshots", stored.Snapshots, run.Snapshots}, {"exec timeout (ms)", stored.ExecTimeoutMs, run.ExecTimeoutMs},
		{"dictionary", stored.DictSHA256, run.DictSHA256},
	} {
		if f.a != f.b {
			return fmt.Sprintf("%s %v, this run %v", f.name, f.a, f.b)
		}
	}
	return "same key"
}

// saveTrial stores tr in dir, whole or not at all.
func saveTrial(dir string, key trialKey, tr *Trial) error {
	data, err := json.MarshalIndent(storedTrial{Key: key, Trial: *tr}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, trialFile), append(data, '\n'))
}
