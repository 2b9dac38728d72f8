package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/llama"
	"github.com/gasplab/gasp/pkg/runs/runstest"
)

// TestExperimentMergeShards runs the tiny experiment unsharded, and as two shards in two separate
// processes running side by side with separate stores, merges the shard stores and checks that the merged
// store holds the unsharded run's records, file by file and line by line (elapsed_ms aside).
func TestExperimentMergeShards(t *testing.T) {
	cfg, full, _ := runTiny(t)
	dir := t.TempDir()
	var shards []string
	procs := make([]*exec.Cmd, 2)
	for i := range procs {
		store := filepath.Join(dir, "shard"+string(rune('0'+i)))
		shards = append(shards, store)
		args, _ := json.Marshal([]string{"experiment", "run", cfg, "--shard", string(rune('0'+i)) + "/2", "--store", store})
		procs[i] = exec.Command(os.Args[0], "-test.run=^$")
		procs[i].Env = append(os.Environ(), "GASP_TEST_MAIN="+string(args))
	}
	runSideBySide(t, "shard", procs)
	if a, b := len(runstest.Lines(t, shards[0])), len(runstest.Lines(t, shards[1])); a == 0 || b == 0 || a+b != 12 {
		t.Fatalf("shards hold %d and %d records, want 12 together", a, b)
	}
	merged := filepath.Join(dir, "merged")
	code, _, errOut := gasp("experiment", "merge", "--into", merged, shards[0], shards[1])
	if code != 0 || !strings.Contains(errOut, "12 records appended") {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	want := readTree(t, full)
	got := readTree(t, merged)
	for name := range want {
		if name == "LOCK" {
			continue
		}
		if _, ok := got[name]; !ok {
			t.Errorf("merged store lacks %s", name)
		}
	}
	if !slices.Equal(runstest.Lines(t, merged), runstest.Lines(t, full)) {
		t.Errorf("merged store:\n%s\nwant\n%s", strings.Join(runstest.Lines(t, merged), "\n"), strings.Join(runstest.Lines(t, full), "\n"))
	}
	if string(got["experiment.json"]) != string(want["experiment.json"]) {
		t.Errorf("experiment.json:\n%s\nwant\n%s", got["experiment.json"], want["experiment.json"])
	}
	// Merging again appends nothing; a shard of another experiment is refused.
	if code, _, errOut := gasp("experiment", "merge", "--into", merged, shards[1], shards[0]); code != 0 ||
		!strings.Contains(errOut, "0 records appended") || !strings.Contains(errOut, "12 already there") {
		t.Errorf("second merge: exit %d: %s", code, errOut)
	}
	other := filepath.Join(dir, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	settings := strings.Replace(string(want["experiment.json"]), `"seed": 5`, `"seed": 6`, 1)
	if err := os.WriteFile(filepath.Join(other, "experiment.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := gasp("experiment", "merge", "--into", merged, other); code != 1 || !strings.Contains(errOut, "different sampling settings") {
		t.Errorf("merging another experiment: exit %d: %s", code, errOut)
	}
	if code, _, errOut := gasp("experiment", "merge", shards[0]); code != 2 || !strings.Contains(errOut, "--into") {
		t.Errorf("no --into: exit %d: %s", code, errOut)
	}
}

// TestDeployScripts runs deploy/slurm-array.sh as the two tasks of a Slurm array would (the test binary as
// the gasp binary, on the default backend as the unsharded run), merges their stores and compares with an unsharded run; and checks
// that the Kubernetes Indexed Job passes its shard count consistently.
func TestDeployScripts(t *testing.T) {
	cfg, full, _ := runTiny(t)
	dir := t.TempDir()
	wrapper := gaspExecutable(t, dir)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	stores := filepath.Join(dir, "stores")
	backend := os.Getenv("GOMLX_BACKEND") // the unsharded run's: the engines differ in the logits' last bits
	if backend == "" {
		backend = llama.DefaultBackend()
	}
	procs := make([]*exec.Cmd, 2)
	for i := range procs {
		procs[i] = exec.Command("bash", "deploy/slurm-array.sh", cfg)
		procs[i].Dir = root
		procs[i].Env = append(os.Environ(), "GASP="+wrapper, "STORE_ROOT="+stores, "GOMLX_BACKEND="+backend,
			"SLURM_ARRAY_TASK_ID="+string(rune('0'+i)), "SLURM_ARRAY_TASK_COUNT=2", "SLURM_ARRAY_TASK_MIN=0")
	}
	runSideBySide(t, "array task", procs)
	shards, _ := filepath.Glob(filepath.Join(stores, "shard-*-of-2"))
	if len(shards) != 2 {
		t.Fatalf("shard stores %v, want 2", shards)
	}
	merged := filepath.Join(dir, "merged")
	if code, _, errOut := gasp(append([]string{"experiment", "merge", "--into", merged}, shards...)...); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	if !slices.Equal(runstest.Lines(t, merged), runstest.Lines(t, full)) {
		t.Errorf("merged store differs from the unsharded run")
	}

	b, err := os.ReadFile(filepath.Join(root, "deploy", "k8s-indexed-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	job := string(b)
	completions := regexp.MustCompile(`(?m)^\s*completions:\s*(\d+)`).FindStringSubmatch(job)
	shardsEnv := regexp.MustCompile(`(?m)name: SHARDS\s*\n\s*value: "(\d+)"`).FindStringSubmatch(job)
	if completions == nil || shardsEnv == nil || completions[1] != shardsEnv[1] {
		t.Errorf("completions %v and SHARDS %v must be equal", completions, shardsEnv)
	}
	for _, want := range []string{"completionMode: Indexed", `--shard "$JOB_COMPLETION_INDEX/$SHARDS"`, "experiment run", "gasp doctor"} {
		if !strings.Contains(job, want) {
			t.Errorf("k8s-indexed-job.yaml lacks %q", want)
		}
	}
}

// runSideBySide starts the processes together and waits for them all; a
// failure names the process as what and its index.
func runSideBySide(t *testing.T, what string, procs []*exec.Cmd) {
	t.Helper()
	for _, p := range procs {
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range procs {
		if err := p.Wait(); err != nil {
			t.Fatalf("%s %d: %v", what, i, err)
		}
	}
}

// gaspExecutable writes a gasp executable into dir for scripts to run: a shell script running the test
// binary with its arguments as GASP_TEST_MAIN (see TestMain). Arguments may not hold quotes or backslashes.
func gaspExecutable(t *testing.T, dir string) string {
	t.Helper()
	wrapper := filepath.Join(dir, "gasp")
	script := "#!/bin/sh\nargs=''\nfor a in \"$@\"; do args=\"$args,\\\"$a\\\"\"; done\n" +
		"GASP_TEST_MAIN=\"[${args#,}]\" exec " + os.Args[0] + " -test.run='^$'\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return wrapper
}
