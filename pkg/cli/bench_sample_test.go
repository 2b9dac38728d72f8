package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestBenchSample(t *testing.T) {
	code, stdout, stderr := gasp("bench", "sample", "--grammar", sampleGrammar, "--prompt", samplePrompt,
		"--chains", "3", "--k", "2", "--max-new-tokens", "12", "--method", "mcmc-uniform", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep sampleReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v: %q", err, stdout)
	}
	// Each step evaluates its regenerated suffix but its last token, plus
	// the token before a cut (when not at 0) and what it restores; the
	// authors' algorithm re-encodes the prompt twice per step.
	if rep.Chains != 3 || rep.K != 2 || rep.WallMS <= 0 || rep.LMMS <= 0 || rep.LMMS > rep.WallMS ||
		rep.EvalsPerStep > rep.RegenPerStep+1+float64(rep.Restored)/6 || rep.Authors < 2*float64(len(samplePrompt)/8) {
		t.Errorf("implausible report: %+v", rep)
	}
	code, stdout, _ = gasp("bench", "sample", "--grammar", sampleGrammar, "--prompt", samplePrompt,
		"--chains", "2", "--k", "1", "--max-new-tokens", "12")
	if code != 0 || !strings.Contains(stdout, "outside the model") || !strings.Contains(stdout, "samples/s") {
		t.Errorf("text report (exit %d):\n%s", code, stdout)
	}
}
