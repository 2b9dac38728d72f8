package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests of scripts/gpu-check.sh run it in its CPU mode (GPU_CHECK_TINY=1: every stage on a synthesized
// 2-layer model with the Llama 3 vocabulary and bf16 weights, the pure-Go backend, the numpy reference).
// What they cannot check here is the GPU side: jax's plugin, transformers' reference, XLA; analysis/gpu/
// holds the reports of the runs on a GPU.

// gpuCheck is one run of the script: its command (not started) and where it writes.
type gpuCheck struct {
	cmd      *exec.Cmd
	out, dir string
}

// newGPUCheck prepares gpu-check.sh in CPU mode with gasp replaced by testdata/gpucheck-gasp.sh, a
// stand-in that runs this test binary as gasp except where env (GASP_HANG, GASP_FAIL_TINY) says otherwise.
func newGPUCheck(t *testing.T, env ...string) *gpuCheck {
	t.Helper()
	if testing.Short() {
		t.Skip("runs scripts/gpu-check.sh")
	}
	const python = "/usr/bin/python3" // Debian's, where scripts/test-deps.sh installs numpy
	if err := exec.Command(python, "-c", "import numpy").Run(); err != nil {
		t.Skipf("%s has no numpy (scripts/test-deps.sh installs python3-numpy): %v", python, err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tok := filepath.Join(root, ".cache", "llama3", "tokenizer.json")
	if _, err := os.Stat(tok); err != nil {
		t.Skipf("no Llama 3 tokenizer (scripts/fetch-tokenizer.sh): %v", err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "patched"), 0o755); err != nil {
		t.Fatal(err)
	}
	standIn, err := filepath.Abs("testdata/gpucheck-gasp.sh")
	if err != nil {
		t.Fatal(err)
	}
	c := &gpuCheck{cmd: exec.Command("bash", "scripts/gpu-check.sh"), out: filepath.Join(dir, "out"), dir: dir}
	c.cmd.Dir = root
	c.cmd.Env = append(os.Environ(), append([]string{"GPU_CHECK_TINY=1", "GOMLX_BACKEND=go", "PYTHON=" + python,
		"TOKENIZER=" + tok, "GASP=" + standIn, "GASP_REAL=" + gaspExecutable(t, dir),
		"GASP_PATCHED=" + gaspExecutable(t, filepath.Join(dir, "patched")), "WORK=" + filepath.Join(dir, "work"),
		"OUT=" + c.out}, env...)...)
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // to kill the script with all it runs
	return c
}

// gpuReport is what the tests read of report.json.
type gpuReport struct {
	Stages []struct {
		Stage, Status string
		Exit          *int
	}
	Binary    string
	Goals     map[string]struct{ Met bool }
	TinyXLA   *struct{ MaxAbsDiff float64 } `json:"tiny_xla"`
	LogitsF32 *struct {
		MaxAbsDiff  float64 `json:"max_abs_diff"`
		ArgmaxEqual bool    `json:"argmax_equal"`
	} `json:"logits_f32"`
	LogitsBF16 *struct {
		ArgmaxEqual bool `json:"argmax_equal"`
	} `json:"logits_bf16"`
	Bench *struct {
		Decode []struct {
			Batch      int
			TokensPerS float64 `json:"tokens_per_s"`
		}
	}
	MemoryPlan *struct {
		MemoryEstimate int64 `json:"memory_estimate_bytes"`
	} `json:"memory_plan"`
	Sample          *struct{ Records, Valid int }
	SampleGCD       *struct{ Records, Valid int } `json:"sample_gcd"`
	FailedStageLogs map[string]string             `json:"failed_stage_logs"`
}

func (c *gpuCheck) report(t *testing.T) (gpuReport, string) {
	t.Helper()
	var rep gpuReport
	b, err := os.ReadFile(filepath.Join(c.out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(c.out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(c.out, "logs.tar.gz")); err != nil {
		t.Error(err)
	}
	return rep, string(md)
}

// status returns each stage's status.
func (r gpuReport) status() map[string]string {
	m := map[string]string{}
	for _, s := range r.Stages {
		m[s.Stage] = s.Status
	}
	return m
}

// TestGPUCheckTiny runs the whole check: every stage succeeds, gasp's f32 logits equal the reference's within
// float32 rounding, its bf16 logits keep the argmax, the benchmark and sampling numbers are there. The
// stand-in refuses the tiny stage's logits, as a plugin refusing go-xla would: the check must fall back to
// GASP_PATCHED and run every later stage with it.
func TestGPUCheckTiny(t *testing.T) {
	c := newGPUCheck(t, "GASP_FAIL_TINY=1", "DEADLINE=300") // the whole check in 5 minutes at most (~25 s here)
	if b, err := c.cmd.CombinedOutput(); err != nil {
		t.Fatalf("gpu-check.sh: %v\n%s", err, b)
	}
	rep, md := c.report(t)
	want := map[string]string{"env": "ok", "tiny_model": "ok", "tiny": "failed", "tiny_patched": "ok", "families": "ok", "synth": "ok",
		"bench8b": "ok", "logits8b": "ok", "memory8b": "ok", "sample": "ok", "sample_gcd": "ok", "cmdbuf": "ok"}
	if got := rep.status(); len(got) != len(want) {
		t.Errorf("stages %v, want %v", got, want)
	} else {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("stage %s: %s, want %s", k, got[k], v)
			}
		}
	}
	if !strings.HasSuffix(rep.Binary, "patched/gasp") {
		t.Errorf("binary %q, want the fallback", rep.Binary)
	}
	if !strings.Contains(rep.FailedStageLogs["tiny"], "stand-in: refusing") {
		t.Errorf("the failed stage's log is not in the report: %q", rep.FailedStageLogs["tiny"])
	}
	for _, g := range []string{"tiny_xla_logits", "logits_f32", "families_f32"} {
		if !rep.Goals[g].Met {
			t.Errorf("goal %s not met: %+v", g, rep.Goals)
		}
	}
	if f := rep.LogitsF32; f == nil || !f.ArgmaxEqual || f.MaxAbsDiff > 1e-4 {
		t.Errorf("f32 logits vs the numpy reference: %+v", f)
	}
	if f := rep.LogitsBF16; f == nil || !f.ArgmaxEqual {
		t.Errorf("bf16 logits vs the numpy reference: %+v", f)
	}
	if rep.Bench == nil || len(rep.Bench.Decode) != 2 || rep.Bench.Decode[1].Batch != 4 || rep.Bench.Decode[1].TokensPerS <= 0 {
		t.Errorf("bench: %+v", rep.Bench)
	}
	if rep.MemoryPlan == nil || rep.MemoryPlan.MemoryEstimate <= 0 {
		t.Errorf("memory plan: %+v", rep.MemoryPlan)
	}
	// 4 chains of k = 2 leave their states k = 0…2; 8 GCD runs a record each.
	if rep.Sample == nil || rep.Sample.Records != 12 || rep.SampleGCD == nil || rep.SampleGCD.Records != 8 {
		t.Errorf("sampling: %+v %+v", rep.Sample, rep.SampleGCD)
	}
	if len(md) < 1000 || !strings.Contains(md, "| sample_gcd | ok |") {
		t.Errorf("report.md (%d bytes):\n%s", len(md), md)
	}
	if !regexp.MustCompile(`off [0-9.]+ ms/step \([0-9]+ tokens/s\), on [0-9.]+ ms/step`).MatchString(md) {
		t.Errorf("report.md has no batch-1 line with command buffers off and on:\n%s", md)
	}
}

// TestGPUCheckKilled kills the check in the middle of a stage, as a device lease's time limit does, and finds
// the report of the stages before it, with the one under way marked so.
func TestGPUCheckKilled(t *testing.T) {
	c := newGPUCheck(t, "GASP_HANG=bench")
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	md := filepath.Join(c.out, "report.md")
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if b, _ := os.ReadFile(md); strings.Contains(string(b), "| bench8b | **running") {
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(md)
			t.Fatalf("the check never reached bench8b; report.md:\n%s", b)
		}
	}
	time.Sleep(time.Second) // inside the stage
	if err := syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = c.cmd.Wait()
	rep, text := c.report(t)
	st := rep.status()
	if st["env"] != "ok" || st["tiny"] != "ok" || st["families"] != "ok" || st["synth"] != "ok" || st["bench8b"] != "running" || len(st) != 6 {
		t.Errorf("stages after the kill: %v", st)
	}
	if !rep.Goals["tiny_xla_logits"].Met {
		t.Errorf("the tiny stage's result is missing: %+v", rep.Goals)
	}
	if !strings.Contains(text, "## Log of bench8b") {
		t.Errorf("report.md does not show the log of the stage under way:\n%s", text)
	}
}

// TestGPUCheckDeadline gives the check too little time: the first stage hangs (gasp doctor) and is cut at
// the deadline, and every stage after it is skipped, not started. Only the script's own clock decides, so
// a loaded machine gives the same outcome.
func TestGPUCheckDeadline(t *testing.T) {
	c := newGPUCheck(t, "GASP_HANG=doctor", "DEADLINE=15")
	t0 := time.Now()
	if b, err := c.cmd.CombinedOutput(); err != nil {
		t.Fatalf("gpu-check.sh: %v\n%s", err, b)
	}
	if el := time.Since(t0); el > 60*time.Second {
		t.Errorf("the check took %v with DEADLINE=15", el)
	}
	rep, _ := c.report(t)
	st := rep.status()
	if st["env"] != "timeout" {
		t.Errorf("env: %q, want timeout (stages %v)", st["env"], st)
	}
	for _, s := range []string{"tiny_model", "tiny", "families", "synth", "bench8b", "logits8b", "memory8b", "sample", "sample_gcd", "cmdbuf"} {
		if st[s] != "skipped" {
			t.Errorf("%s: %q, want skipped (stages %v)", s, st[s], st)
		}
	}
}

// TestGPUTravelSize checks that what a GPU machine receives fits the 64 MiB that travel: the working tree
// (scripts/gpu-size.sh) plus build/gpu-check.tar.gz, 25.6 MiB when measured on 2026-11-27 (two stripped
// gasp binaries and the tokenizer; 22.7 MiB on 2026-11-26), counted here as 26 MiB.
func TestGPUTravelSize(t *testing.T) {
	out, err := exec.Command("bash", "../../scripts/gpu-size.sh").CombinedOutput()
	if err != nil {
		t.Fatalf("gpu-size.sh: %v\n%s", err, out)
	}
	var tree float64
	if _, err := fmt.Sscanf(string(out), "gpu-size: working tree %f MiB", &tree); err != nil {
		t.Fatalf("gpu-size.sh printed %q: %v", out, err)
	}
	const archive = 26.0
	if tree+archive >= 64 {
		t.Errorf("working tree %.1f MiB + archive %.0f MiB: over the 64 MiB that travel", tree, archive)
	}
}

// TestGPUFlagsTiny runs scripts/gpu-flags.sh on a CPU, with the embedded
// model and the pure-Go backend (the XLA flags then do nothing): each of its
// four settings decodes at batch 1 and 100, and flags.md says so.
func TestGPUFlagsTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("runs scripts/gpu-flags.sh")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cmd := exec.Command("bash", "scripts/gpu-flags.sh")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GASP="+gaspExecutable(t, dir), "GPU_FLAGS_MODEL=data/models/tiny",
		"GPU_FLAGS_BACKEND=go", "OUT="+out, "WORK="+filepath.Join(dir, "work"), "DEADLINE=200")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gpu-flags.sh: %v\n%s", err, b)
	}
	md, err := os.ReadFile(filepath.Join(out, "flags.md"))
	if err != nil {
		t.Fatal(err)
	}
	batch100 := regexp.MustCompile(`(?m)^\s+100\s+32\s`) // bench lm's row: batch 100, 32 steps
	for _, run := range []string{"## off:", "## on:", "## off-again:", "## on-again:"} {
		i := strings.Index(string(md), run)
		if i < 0 {
			t.Fatalf("flags.md has no %q run:\n%s", run, md)
		}
		sec, _, _ := strings.Cut(string(md[i+len(run):]), "\n## ")
		if !strings.Contains(sec, "exit 0") || !batch100.MatchString(sec) {
			t.Errorf("run %q did not decode at batch 100 and exit 0:\n%s", run, sec)
		}
	}
}
