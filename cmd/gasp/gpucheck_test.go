package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGPUCheckTiny runs scripts/gpu-check.sh in its CPU mode (GPU_CHECK_TINY=1: a synthesized 2-layer
// model with the Llama 3 vocabulary and bf16 weights, the pure-Go backend, the numpy reference) and checks
// its report: every step succeeded, gasp's f32 logits equal the reference's within float32 rounding, its bf16
// logits keep the argmax, and the benchmark and sampling numbers are there. What it cannot check here is the
// GPU side: jax's plugin, transformers' reference, XLA.
func TestGPUCheckTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole check script (about a minute)")
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
	out := filepath.Join(dir, "out")
	cmd := exec.Command("bash", "scripts/gpu-check.sh")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GPU_CHECK_TINY=1", "GOMLX_BACKEND=go", "PYTHON="+python, "TOKENIZER="+tok,
		"GASP="+gaspExecutable(t, dir), "WORK="+filepath.Join(dir, "work"), "OUT="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gpu-check.sh: %v\n%s", err, b)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Steps []struct {
			Step string
			Exit int
		}
		LogitsF32, LogitsBF16 *struct {
			MaxAbsDiff  float64 `json:"max_abs_diff"`
			ArgmaxEqual bool    `json:"argmax_equal"`
		}
		Bench *struct {
			Decode []struct {
				Batch      int
				TokensPerS float64 `json:"tokens_per_s"`
			}
		}
		Sample, SampleGCD *struct{ Records, Valid int }
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	for key, dst := range map[string]any{"steps": &rep.Steps, "logits_f32": &rep.LogitsF32, "logits_bf16": &rep.LogitsBF16,
		"bench": &rep.Bench, "sample": &rep.Sample, "sample_gcd": &rep.SampleGCD} {
		if err := json.Unmarshal(raw[key], dst); err != nil {
			t.Fatalf("report.json %s: %v", key, err)
		}
	}
	if len(rep.Steps) != 8 {
		t.Errorf("%d steps, want 8: %+v", len(rep.Steps), rep.Steps)
	}
	for _, s := range rep.Steps {
		if s.Exit != 0 {
			t.Errorf("step %s exited %d", s.Step, s.Exit)
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
	if rep.Sample == nil || rep.Sample.Records != 4 || rep.SampleGCD == nil || rep.SampleGCD.Records != 8 {
		t.Errorf("sampling: %+v %+v", rep.Sample, rep.SampleGCD)
	}
	if md, err := os.ReadFile(filepath.Join(out, "report.md")); err != nil || len(md) < 500 {
		t.Errorf("report.md: %v (%d bytes)", err, len(md))
	}
}
