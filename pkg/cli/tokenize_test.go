package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/tokenizer"
)

// writeTinyTokenizer writes a small tokenizer.json in the shape of Llama 3's:
// ids 0..255 are the bytes, 256 is " t", 257 "he", 258 " the"; 300 is the
// special <|bos|> that a TemplateProcessing puts in front, 301 <|eot|>.
func writeTinyTokenizer(t *testing.T) string {
	t.Helper()
	vocab := map[string]int{}
	for b := range 256 {
		vocab[string(tokenizer.ByteLevelRune(byte(b)))] = b
	}
	vocab["Ġt"], vocab["he"], vocab["Ġthe"] = 256, 257, 258
	added := func(id int, content string) map[string]any {
		return map[string]any{"id": id, "content": content, "special": true, "single_word": false,
			"lstrip": false, "rstrip": false, "normalized": false}
	}
	m := map[string]any{
		"added_tokens": []any{added(300, "<|bos|>"), added(301, "<|eot|>")},
		"normalizer":   nil,
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": tokenizer.Llama3Pattern}, "behavior": "Isolated", "invert": false},
			map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false},
		}},
		"post_processor": map[string]any{
			"type":           "TemplateProcessing",
			"single":         []any{map[string]any{"SpecialToken": map[string]any{"id": "<|bos|>", "type_id": 0}}, map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}}},
			"special_tokens": map[string]any{"<|bos|>": map[string]any{"id": "<|bos|>", "ids": []int{300}, "tokens": []string{"<|bos|>"}}},
		},
		"decoder": map[string]any{"type": "ByteLevel"},
		"model":   map[string]any{"type": "BPE", "ignore_merges": true, "vocab": vocab, "merges": []string{"Ġ t", "h e", "Ġt he"}},
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func tokenize(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runTokenizeIO(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestTokenizeCommand(t *testing.T) {
	tok := writeTinyTokenizer(t)
	for _, c := range []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"plain", "hi the", nil, 0, "104 105 258\n"},
		{"bos", " the", []string{"--bos"}, 0, "300 258\n"},
		{"special", "x<|eot|>", nil, 0, "120 301\n"},
		{"special as text", "<|eot|>", []string{"--special-as-text"}, 0, "60 124 101 111 116 124 62\n"},
		{"empty", "", nil, 0, "\n"},
		{"jsonl", "\"hi\"\n\" the<|eot|>\"\r\n\"\"\n\"\\n\"", []string{"--jsonl"}, 0, "[104,105]\n[258,301]\n[]\n[10]\n"},
		{"jsonl bos", "\" the\"\n", []string{"--jsonl", "--bos"}, 0, "[300,258]\n"},
		{"jsonl bad", "\"a\"\nb\n", []string{"--jsonl"}, 1, "[97]\n"},
		{"args", "", []string{"text"}, 2, ""},
		{"flag", "", []string{"--nope"}, 2, ""},
		{"help", "", []string{"-h"}, 0, "usage: gasp tokenize"},
		{"missing", "", []string{"--tokenizer", filepath.Join(t.TempDir(), "none.json")}, 1, ""},
	} {
		args := c.args
		if !strings.HasPrefix(strings.Join(args, " "), "--tokenizer") {
			args = append([]string{"--tokenizer", tok}, args...)
		}
		code, out, errOut := tokenize(t, c.stdin, args...)
		if code != c.code || !strings.HasPrefix(out, c.want) || c.want == "" && out != "" {
			t.Errorf("%s: code %d, stdout %q, stderr %q; want code %d, stdout %q", c.name, code, out, errOut, c.code, c.want)
		}
		if c.code == 1 && errOut == "" {
			t.Errorf("%s: no error message", c.name)
		}
	}
}

func TestTokenizeLlama3(t *testing.T) {
	path := filepath.Join("..", "..", ".cache", "llama3", "tokenizer.json")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no Llama-3 tokenizer at %s (run scripts/fetch-tokenizer.sh)", path)
	}
	code, out, errOut := tokenize(t, "Hello world<|eot_id|>", "--tokenizer", path, "--bos")
	if code != 0 || out != "128000 9906 1917 128009\n" {
		t.Errorf("gasp tokenize --bos: code %d, %q, %q", code, out, errOut)
	}
}

func TestBenchTokenize(t *testing.T) {
	tok := writeTinyTokenizer(t)
	text := filepath.Join(t.TempDir(), "text.txt")
	if err := os.WriteFile(text, []byte("hello the world 123\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"bench", "tokenize", "--tokenizer", tok, "--mb", "0.05", "--passes", "2", "--text", text}, &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "best") || !strings.Contains(out.String(), "MB/s") {
		t.Errorf("gasp bench tokenize: code %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	// The default mix, from the repository root's data (here: none found
	// is fine, the random part remains).
	if code := runBenchTokenize([]string{"--tokenizer", tok, "--mb", "0.05", "--passes", "1"}, &out, &errb); code != 0 {
		t.Errorf("default mix: code %d: %s", code, errb.String())
	}
	if code := runBenchTokenize([]string{"--mb", "-1"}, &out, &errb); code != 2 {
		t.Errorf("--mb -1: code %d, want 2", code)
	}
}
