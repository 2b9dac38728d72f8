package cli

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

func TestBenchLM(t *testing.T) {
	code, out, errOut := gasp("bench", "lm", "--batch", "1,2", "--steps", "2", "--prompt-len", "8", "--max-seq", "16", "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var rep lmReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	if rep.Params == 0 || rep.PrefillTokS <= 0 || len(rep.Decode) != 2 || rep.Decode[1].Batch != 2 ||
		rep.Decode[1].Steps != 2 || rep.Decode[1].TokensPerS <= 0 || rep.BatchingGain <= 0 {
		t.Errorf("report %+v", rep)
	}
}

func TestBenchLMErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--batch", "1,x"}, 2, `bad number "x"`},
		{[]string{"--batch", "0"}, 2, `bad number "0"`},
		{[]string{"--prompt-len", "600"}, 2, "usage"},
		{[]string{"--model", t.TempDir()}, 1, "config.json"},
	} {
		code, _, errOut := gasp(append([]string{"bench", "lm"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}

// TestBenchLMJSONOnly: with --threads, stdout holds the JSON report only (GoMLX's pure-Go backend prints on
// os.Stdout when its "parallelism" option is set, which --threads must not do); run as a process, since the
// library writes to the real stdout. Both engines.
func TestBenchLMJSONOnly(t *testing.T) {
	exe := gaspExecutable(t, t.TempDir())
	for _, backend := range []string{"go", "cpu"} {
		out, err := exec.Command(exe, "bench", "lm", "--backend", backend, "--threads", "1", "--batch", "1", "--steps", "1",
			"--prompt-len", "4", "--max-seq", "16", "--json").Output()
		if err != nil {
			t.Fatalf("%s: %v", backend, err)
		}
		var rep lmReport
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatalf("%s: stdout %q is not one JSON report: %v", backend, out, err)
		}
		if !strings.HasPrefix(rep.Backend, backend) || rep.Threads != 1 {
			t.Errorf("%s: report says backend %q, %d threads", backend, rep.Backend, rep.Threads)
		}
	}
}

// TestBenchLMLogits: --logits-ids reports, from the benchmark's own load of the model, the logits that
// "gasp logits" gives for the same ids (one load of an 8B checkpoint serves both in the GPU check), and the
// memory estimate of the largest batch.
func TestBenchLMLogits(t *testing.T) {
	const ids = "1 17 300 42"
	code, out, errOut := gasp("bench", "lm", "--batch", "1,3", "--steps", "1", "--prompt-len", "4", "--max-seq", "16",
		"--logits-ids", ids, "--json")
	if code != 0 {
		t.Fatalf("bench lm: exit %d: %s", code, errOut)
	}
	var rep lmReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = gasp("logits", "--ids", ids)
	if code != 0 {
		t.Fatalf("logits: exit %d: %s", code, errOut)
	}
	var want logitsReport
	if err := json.Unmarshal([]byte(out), &want); err != nil {
		t.Fatal(err)
	}
	if rep.LogitsIDs != 4 || len(rep.Logits) != want.VocabSize || len(want.Logits) != want.VocabSize {
		t.Fatalf("%d ids, %d logits; gasp logits: %d of %d", rep.LogitsIDs, len(rep.Logits), len(want.Logits), want.VocabSize)
	}
	for i, v := range want.Logits {
		if d := rep.Logits[i] - v; d > 1e-5 || d < -1e-5 {
			t.Fatalf("logit %d: bench lm %g, gasp logits %g", i, rep.Logits[i], v)
		}
	}
	if rep.MemoryEstimate <= 0 || rep.LoadS <= 0 {
		t.Errorf("memory estimate %d, load %g s", rep.MemoryEstimate, rep.LoadS)
	}
	if code, _, errOut := gasp("bench", "lm", "--logits-ids", "1 x"); code != 2 || !strings.Contains(errOut, `--logits-ids: "x" is not a token id`) {
		t.Errorf("bad --logits-ids: exit %d: %s", code, errOut)
	}
}
