package fuzz

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A stored trial comes back with its key; with another key, or garbled, it
// is refused with the file's path and what to do.
func TestStoredTrial(t *testing.T) {
	dir := t.TempDir()
	key := trialKey{Target: "sql", Version: "3.40", SeedsSHA256: "ab", TimeSeconds: 300, Snapshots: 10, ExecTimeoutMs: 1000}
	if _, ok, err := loadTrial(dir, key); ok || err != nil {
		t.Fatalf("nothing stored: ok %v, err %v", ok, err)
	}
	tr := &Trial{Trial: 2, AFLSeed: 45, Execs: 1234, Coverage: Coverage{BranchPct: 12.5}}
	if err := saveTrial(dir, key, tr); err != nil {
		t.Fatal(err)
	}
	got, ok, err := loadTrial(dir, key)
	if !ok || err != nil || got.AFLSeed != 45 || got.Execs != 1234 || got.BranchPct != 12.5 {
		t.Fatalf("stored trial: %+v, ok %v, err %v", got, ok, err)
	}
	path := filepath.Join(dir, trialFile)
	for _, c := range []struct {
		change func(*trialKey)
		want   string
	}{
		{func(k *trialKey) { k.SeedsSHA256 = "cd" }, "seed files ab, this run cd"},
		{func(k *trialKey) { k.TimeSeconds = 600 }, "time 300, this run 600"},
		{func(k *trialKey) { k.DictSHA256 = "ef" }, "dictionary , this run ef"},
	} {
		other := key
		c.change(&other)
		_, _, err := loadTrial(dir, other)
		want := path + " was made by another run (" + c.want + "); remove it, or give --out a new directory"
		if err == nil || err.Error() != want {
			t.Errorf("err %v, want %q", err, want)
		}
	}
	os.WriteFile(path, []byte(`{"key": `), 0o644)
	if _, _, err := loadTrial(dir, key); err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.HasSuffix(err.Error(), "; remove it to run the trial again") {
		t.Errorf("garbled trial.json: %v", err)
	}
}

// TestRunResume runs trial 2 of 2 alone (as a Slurm array task would), then
// resumes: only trial 1 runs, trial 2 is kept as stored, and coverage.json
// has both, with their AFL++ seeds. A resume with other options is refused.
func TestRunResume(t *testing.T) {
	tc := toolchain(t)
	tg, err := tc.Target("xml")
	if err != nil {
		t.Fatal(err)
	}
	seeds := t.TempDir()
	if err := WriteSeeds(seeds, tg.Ext, mustSeeds(t, compile(t, "xml"), 10, 1, defaultDepth(t, "xml"))); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	out := t.TempDir()
	opts := Options{Target: "xml", Seeds: seeds, Time: 2 * time.Second, Trials: 2, Snapshots: 2, Out: out}
	only := opts
	only.Only = 2
	if _, err := Run(ctx, tc, only); !errors.Is(err, ErrTrialsPending) || !strings.Contains(err.Error(), "1 of 2 trials stored") {
		t.Fatalf("trial 2 alone: err %v, want 1 of 2 trials stored", err)
	}
	if _, err := os.Stat(filepath.Join(out, "trial-0")); !os.IsNotExist(err) {
		t.Errorf("trial 1 ran with Only = 2: %v", err)
	}
	second := filepath.Join(out, "trial-1", trialFile)
	before, err := os.ReadFile(second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "coverage.json")); !os.IsNotExist(err) {
		t.Errorf("coverage.json written with a trial pending: %v", err)
	}

	longer := opts
	longer.Resume, longer.Time = true, 3*time.Second
	if _, err := Run(ctx, tc, longer); err == nil || !strings.Contains(err.Error(), "was made by another run (time 2, this run 3)") {
		t.Errorf("resume with another time: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "trial-0")); !os.IsNotExist(err) {
		t.Errorf("a resume refused for a stored trial ran another: %v", err)
	}

	// A trial stored under another trial's directory is refused.
	misplaced := filepath.Join(out, "trial-0", trialFile)
	os.MkdirAll(filepath.Dir(misplaced), 0o755)
	os.WriteFile(misplaced, before, 0o644)
	resumeAll := opts
	resumeAll.Resume = true
	if _, err := Run(ctx, tc, resumeAll); err == nil || err.Error() != misplaced+" holds trial 1, not 0; remove it to run the trial again" {
		t.Errorf("misplaced trial: %v", err)
	}
	os.RemoveAll(filepath.Dir(misplaced))

	var log bytes.Buffer
	resume := opts
	resume.Resume, resume.Log = true, &log
	rep, err := Run(ctx, tc, resume)
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(second); !bytes.Equal(after, before) {
		t.Error("the stored trial 2 was run again")
	}
	if !strings.Contains(log.String(), "xml trial 1: stored in "+out+", kept") || strings.Count(log.String(), "afl-fuzz for") != 1 {
		t.Errorf("resume log:\n%s", log.String())
	}
	if len(rep.TrialReport) != 2 || rep.TrialReport[0].AFLSeed != 43 || rep.TrialReport[1].AFLSeed != 44 {
		t.Fatalf("trials %+v", rep.TrialReport)
	}
	if _, err := os.Stat(filepath.Join(out, "coverage.json")); err != nil {
		t.Errorf("no coverage.json after the last trial: %v", err)
	}
	want := (rep.TrialReport[0].BranchPct + rep.TrialReport[1].BranchPct) / 2
	if d := rep.BranchPct - want; d > 1e-9 || d < -1e-9 {
		t.Errorf("branch %v is not the mean of the trials' %v", rep.BranchPct, want)
	}
}

// afl-fuzz reads AFL_TRY_AFFINITY as on whatever its value; set, it bound
// every trial to the first free core, so two trials run side by side shared
// one of two cores.
func TestAFLEnvLeavesCoresToKernel(t *testing.T) {
	env := aflEnv(43)
	if !slices.Contains(env, "AFL_NO_AFFINITY=1") || !slices.Contains(env, "AFL_RANDOM_SEED=43") {
		t.Errorf("aflEnv(43) = %q: want AFL_NO_AFFINITY=1 and AFL_RANDOM_SEED=43", env)
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "AFL_TRY_AFFINITY=") {
			t.Errorf("aflEnv sets %s: afl-fuzz then binds trials to one core", kv)
		}
	}
}

func TestChildrenCPU(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
	}{
		{"0m0.000000s 0m0.000000s\n4m58.280000s 0m1.500000s\n", 299.78},
		{"0m0.01s 0m0.00s\n0m0.28s 0m0.00s", 0.28},
		{"", 0},
		{"0m0.01s 0m0.00s\nbusy", 0},
	} {
		if got := childrenCPU(c.in); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("childrenCPU(%q) = %g, want %g", c.in, got, c.want)
		}
	}
}

// With MinCPUShare, a stored trial that had less of a core, or no CPU
// record, is not kept: it runs again.
func TestStoredTrialCPUShare(t *testing.T) {
	out := t.TempDir()
	key := trialKey{Target: "sql", Version: "3.40", SeedsSHA256: "ab", TimeSeconds: 300, Snapshots: 10, ExecTimeoutMs: 1000}
	for i, cpu := range []float64{290, 200, 0} {
		dir := filepath.Join(out, fmt.Sprintf("trial-%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := saveTrial(dir, key, &Trial{Trial: i, CPUSeconds: cpu}); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	opts := Options{Trials: 3, Time: 300 * time.Second, Resume: true, MinCPUShare: 0.9, Log: &log}
	stored, err := storedTrials(out, opts, key)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 1 || stored[0] == nil {
		t.Errorf("kept %v, want trial 0 only (290 of 300 CPU seconds)", stored)
	}
	if !strings.Contains(log.String(), "200 CPU seconds of 300") {
		t.Errorf("log does not say why trial 1 runs again:\n%s", log.String())
	}
	opts.MinCPUShare = 0
	if stored, _ := storedTrials(out, opts, key); len(stored) != 3 {
		t.Errorf("without a share: kept %d trials, want 3", len(stored))
	}
}
