package cli

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/runs"
)

// newSandbox returns a fresh directory of a user's files: what no command
// may remove or rewrite unless it wrote it. new/ is where a case's outputs
// go. Larger fixtures (models, run stores, coverage reports) are made once,
// by fixtures, and named by {fx}.
func newSandbox(t *testing.T, repo string) string {
	t.Helper()
	sb := t.TempDir()
	files := map[string]string{
		"README.md":               "# my project\n",
		"notes.txt":               "notes\n",
		"raw.txt":                 "notes",
		"existing.md":             "my table\n",
		"data.csv":                "a,b\n1,2\n",
		"fig.svg":                 "<svg/>\n",
		"ids.txt":                 "",
		"dir/x.txt":               "x\n",
		"my notes/a.jsonl":        "{}\n",
		"seeds/seed-0000.xml":     "<a/>\n",
		"userlock/LOCK":           "my lock notes\n",
		"exp.json":                experimentJSON(repo, 1_000_000_000_000, 10, 1),
		"exp-small.json":          experimentJSON(repo, 1, 0, 1),
		"fuzzuser/tables.md":      "my tables\n",
		"fuzzk/xml/gcd/README.md": "mine\n",
	}
	for name, content := range files {
		writeSandboxFile(t, filepath.Join(sb, name), []byte(content))
	}
	cov, err := os.ReadFile(filepath.Join(repo, "analysis", "fuzz-quick", "xml", "gcd", "coverage.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeSandboxFile(t, filepath.Join(sb, "fuzzuser", "xml", "gcd", "coverage.json"), cov)
	writeSandboxFile(t, filepath.Join(sb, "fuzzk", "xml", "mcmc-uniform-k99999999999999999999", "coverage.json"), cov)
	if err := os.Mkdir(filepath.Join(sb, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	return sb
}

func writeSandboxFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// experimentJSON is a one-task experiment on the embedded model.
func experimentJSON(repo string, nRuns, batch, k int) string {
	b, _ := json.Marshal(map[string]any{
		"name": "misuse", "protocol": "quick", "task_root": filepath.Join(repo, "data", "gad"), "tasks": []string{"SLIA/lastname"},
		"methods": []string{"gcd", "mcmc-uniform"}, "k": k, "runs": nRuns, "batch": batch,
		"model": filepath.Join(repo, "data", "models", "tiny"), "template": "chat", "temperature": 1.0, "top_p": 1.0, "top_k": 0,
		"max_new_tokens": 4, "seed": 1, "lenient": true,
	})
	return string(b)
}

// fixtures makes, in dir, the models and run stores the cases read:
// nanmodel (the embedded model with NaN weights), hugemodel (its config
// with 10⁹ layers), and stores/NAME, each a run store of task "x" with one
// defect a writer never leaves.
func fixtures(t *testing.T, repo, dir string) {
	t.Helper()
	tiny := filepath.Join(repo, "data", "models", "tiny")
	for _, name := range []string{"config.json", "tokenizer.json", "tokenizer_config.json", "generation_config.json", "model.safetensors"} {
		b, err := os.ReadFile(filepath.Join(tiny, name))
		if err != nil {
			t.Fatal(err)
		}
		writeSandboxFile(t, filepath.Join(dir, "hugemodel", name), b)
		if name == "model.safetensors" { // every weight NaN (all bits set)
			n := 8 + binary.LittleEndian.Uint64(b[:8])
			for i := n; i < uint64(len(b)); i++ {
				b[i] = 0xFF
			}
		}
		writeSandboxFile(t, filepath.Join(dir, "nanmodel", name), b)
	}
	cfg, _ := os.ReadFile(filepath.Join(tiny, "config.json"))
	huge := strings.Replace(string(cfg), `"num_hidden_layers": 2`, `"num_hidden_layers": 1000000000`, 1)
	if huge == string(cfg) {
		t.Fatal("tiny config.json: no num_hidden_layers 2 to replace")
	}
	writeSandboxFile(t, filepath.Join(dir, "hugemodel", "config.json"), []byte(huge))
	makeStores(t, repo, filepath.Join(dir, "stores"))
}

func storeRecord(method string, k, run int) runs.Record {
	return runs.Record{Task: "x", Method: method, K: k, Run: run, Seed: uint64(run), PromptIDs: []int{1, 2},
		IDs: []int{3, 4 + run%2}, Text: fmt.Sprint("t", run%2), LogP: -1 - float64(run%2), LogPGCD: -0.5, Valid: true,
		Status: runs.StatusComplete}
}

// makeStores writes the defective stores under dir.
func makeStores(t *testing.T, repo, dir string) {
	t.Helper()
	line := func(r runs.Record) string {
		r.Schema = runs.Schema
		b, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	conflict := storeRecord("gcd", 0, 1)
	conflict.Text, conflict.IDs = "other", []int{9}
	neg := storeRecord("gcd", 0, 1)
	neg.Run = -1
	tail := map[string]string{
		"dup":               line(storeRecord("gcd", 0, 1)),
		"conflict":          line(conflict),
		"negrun":            line(neg),
		"outgrid":           line(storeRecord("gcd", 0, 5)),
		"outk":              "",
		"lower":             "",
		"badesc":            "",
		"hidden":            "",
		"complete-bad-last": "{\"schema\":2,\"task\n",
	}
	for name, extra := range tail {
		d := filepath.Join(dir, name)
		st, err := runs.Open(d)
		if err != nil {
			t.Fatal(err)
		}
		for run := range 2 {
			if err := st.Append(storeRecord("gcd", 0, run)); err != nil {
				t.Fatal(err)
			}
		}
		if name == "outk" {
			if err := st.Append(storeRecord("mcmc-uniform", 3, 0)); err != nil {
				t.Fatal(err)
			}
		}
		path := st.Path("x", "gcd")
		st.Close()
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(extra)
		f.Close()
		writeSandboxFile(t, filepath.Join(d, "experiment.json"), []byte(experimentJSON(repo, 2, 0, 1)))
		switch name {
		case "lower":
			os.Mkdir(filepath.Join(d, "CP%2fx"), 0o755)
		case "badesc":
			os.Mkdir(filepath.Join(d, "bad%ZZ"), 0o755)
		case "hidden":
			os.Mkdir(filepath.Join(d, ".hidden"), 0o755)
		}
	}
}
