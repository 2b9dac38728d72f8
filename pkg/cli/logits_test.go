package cli

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/llama"
)

// logitsTestModel is a small random checkpoint with reference logits (see pkg/llama/testdata).
var logitsTestModel = filepath.Join("..", "..", "pkg", "llama", "testdata", "tiny")

func TestLogits(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(logitsTestModel, "ids.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []int
	if err := json.Unmarshal(data, &ids); err != nil {
		t.Fatal(err)
	}
	ids = ids[:10]
	idsArg := strings.Trim(strings.ReplaceAll(string(mustJSON(t, ids)), ",", " "), "[]")
	rep := logits(t, "--model", logitsTestModel, "--ids", idsArg)
	if rep.VocabSize != 256 || len(rep.Logits) != 256 {
		t.Fatalf("vocab_size %d, %d logits; want 256", rep.VocabSize, len(rep.Logits))
	}
	// The reference logits (float64 [24, 256] .npy, version 1.0) at position 9.
	raw, err := os.ReadFile(filepath.Join(logitsTestModel, "logits.npy"))
	if err != nil {
		t.Fatal(err)
	}
	body := raw[10+int(binary.LittleEndian.Uint16(raw[8:10])):]
	worst := 0.0
	for j, got := range rep.Logits {
		want := math.Float64frombits(binary.LittleEndian.Uint64(body[8*(9*256+j):]))
		worst = max(worst, math.Abs(got-want))
	}
	if worst > 1e-4 {
		t.Errorf("logits differ from the reference by up to %g", worst)
	}
}

// logitsOutput is what "gasp logits" prints, in float64.
type logitsOutput struct {
	VocabSize int       `json:"vocab_size"`
	Logits    []float64 `json:"logits"`
}

// logits runs "gasp logits" with args and returns what it printed.
func logits(t *testing.T, args ...string) logitsOutput {
	t.Helper()
	code, out, errOut := gasp(append([]string{"logits"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var rep logitsOutput
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	return rep
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLogitsErrors(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--model", logitsTestModel}, 2, "--ids is required"},
		{[]string{"--model", logitsTestModel, "--ids", "1 x"}, 2, `"x" is not a token id`},
		{[]string{"--model", logitsTestModel, "--ids", "1,-2"}, 2, `"-2" is not a token id`},
		{[]string{"--model", logitsTestModel, "--ids", "1 256"}, 1, "token id 256"},
		{[]string{"--model", filepath.Join(t.TempDir(), "none"), "--ids", "1"}, 1, "does not exist"},
		{[]string{"--model", t.TempDir(), "--ids", "1"}, 1, "config.json"},
		{[]string{"--model", logitsTestModel, "--ids", "1", "extra"}, 2, "unexpected arguments"},
	} {
		code, _, errOut := gasp(append([]string{"logits"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.stderr) {
			t.Errorf("gasp logits %q: exit %d, stderr %q; want exit %d, stderr with %q", tc.args, code, errOut, tc.code, tc.stderr)
		}
	}
	if code, out, _ := gasp("help", "logits"); code != 0 || !strings.Contains(out, "usage: gasp logits") {
		t.Errorf("gasp help logits: exit %d, stdout %q", code, out)
	}
}

// TestLogitsDefaultModel: without --model, the embedded model answers.
func TestLogitsDefaultModel(t *testing.T) {
	rep := logits(t, "--ids", "1 2 3")
	cfg, err := llama.LoadConfig("../../data/models/tiny")
	if err != nil {
		t.Fatal(err)
	}
	if want := cfg.VocabSize; rep.VocabSize != want || len(rep.Logits) != want {
		t.Errorf("vocab_size %d, %d logits; want the embedded model's %d", rep.VocabSize, len(rep.Logits), want)
	}
}
