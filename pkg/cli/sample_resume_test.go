package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain lets a test run gasp as a child process (to kill it): with
// $GASP_TEST_MAIN set to a JSON list of arguments, the test binary is gasp.
func TestMain(m *testing.M) {
	if a := os.Getenv("GASP_TEST_MAIN"); a != "" {
		var args []string
		if err := json.Unmarshal([]byte(a), &args); err != nil {
			panic(err)
		}
		os.Exit(run(args, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// resumeArgs are the "gasp sample" arguments of the resume tests: runs
// written one batch of 2 at a time.
func resumeArgs(out string, extra ...string) []string {
	return append([]string{"sample", "--grammar", sampleGrammar, "--prompt", samplePrompt, "--method", "mcmc-uniform",
		"--k", "2", "--n", "6", "--batch", "2", "--max-new-tokens", "12", "--seed", "3", "--out", out}, extra...)
}

// withoutElapsed returns the file's lines without elapsed_ms, the one
// field that differs between runs.
func withoutElapsed(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: bad line %q: %v", path, line, err)
		}
		delete(m, "elapsed_ms")
		b, _ := json.Marshal(m)
		out = append(out, string(b))
	}
	return out
}

func gaspOK(t *testing.T, args []string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("gasp %v: exit %d\n%s", args, code, stderr.String())
	}
	return stderr.String()
}

// A run cut short (records lost, a torn last line) and resumed ends with
// the same file as an uninterrupted one, elapsed_ms aside.
func TestSampleResume(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.jsonl")
	gaspOK(t, resumeArgs(full))
	want := withoutElapsed(t, full)
	if len(want) != 18 {
		t.Fatalf("%d records, want 18 (6 runs, k = 0, 1, 2)", len(want))
	}

	// Killed while writing the second record (k = 1) of the second batch's
	// first run: that run's k = 0 is kept, and resuming adds only the rest.
	b, _ := os.ReadFile(full)
	lines := strings.SplitAfter(string(b), "\n")
	cut := filepath.Join(dir, "cut.jsonl")
	torn := strings.Join(lines[:7], "") + lines[7][:len(lines[7])/2]
	if err := os.WriteFile(cut, []byte(torn), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(resumeArgs(cut), &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "--resume") {
		t.Errorf("without --resume: exit %d, %q; want a refusal", code, stderr.String())
	}
	msg := gaspOK(t, resumeArgs(cut, "--resume"))
	if !strings.Contains(msg, "warning") || !strings.Contains(msg, "cut.jsonl:8") {
		t.Errorf("no warning about the torn line: %q", msg)
	}
	if got := withoutElapsed(t, cut); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("resumed file:\n%s\nuninterrupted:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Nothing left to do; another seed is refused.
	if msg := gaspOK(t, resumeArgs(cut, "--resume")); !strings.Contains(msg, "6 of 6 runs already") {
		t.Errorf("second resume: %q", msg)
	}
	stderr.Reset()
	if code := run(resumeArgs(cut, "--resume", "--n", "8", "--seed", "4"), &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "seed") {
		t.Errorf("resume with another seed: exit %d, %q", code, stderr.String())
	}
}

// A gasp process killed with SIGKILL in the middle of a run, then resumed.
func TestSampleKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts gasp twice")
	}
	dir := t.TempDir()
	full := filepath.Join(dir, "full.jsonl")
	gaspOK(t, resumeArgs(full, "--batch", "1"))
	want := withoutElapsed(t, full)

	out := filepath.Join(dir, "killed.jsonl")
	args, _ := json.Marshal(resumeArgs(out, "--batch", "1"))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GASP_TEST_MAIN="+string(args))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once it has written two records.
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if b, _ := os.ReadFile(out); bytes.Count(b, []byte("\n")) >= 2 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	b, _ := os.ReadFile(out)
	t.Logf("killed after %d of %d records", bytes.Count(b, []byte("\n")), len(want))
	if bytes.Count(b, []byte("\n")) < 2 {
		t.Fatalf("the child wrote %d records before the deadline", bytes.Count(b, []byte("\n")))
	}
	gaspOK(t, resumeArgs(out, "--batch", "1", "--resume"))
	if got := withoutElapsed(t, out); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("resumed file:\n%s\nuninterrupted:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
