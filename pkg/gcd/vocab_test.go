package gcd

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/tokenizer"
)

func TestParseVocab(t *testing.T) {
	v, err := LoadVocab(filepath.Join("testdata", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if v.Size() != 15 {
		t.Fatalf("Size() = %d, want 15", v.Size())
	}
	want := []struct {
		bytes   string
		special bool
		name    string
	}{
		0:  {"a", false, "a"},
		1:  {"b", false, "b"},
		2:  {" ", false, "Ġ"},
		3:  {"\n", false, "Ċ"},
		4:  {"ab", false, "ab"},
		5:  {" ab", false, "Ġab"},
		6:  {"é", false, "Ã©"},
		7:  {"\x00", false, "Ā"},
		8:  {"\xad", false, "Ń"},
		9:  {"\xff", false, "ÿ"},
		10: {"<|end_of_text|>", true, "<|end_of_text|>"},
		11: {"<|eot_id|>", true, "<|eot_id|>"},
		12: {" <mask> ", false, " <mask> "},
		13: {"", true, ""}, // gap
		14: {"<s>", true, "<s>"},
	}
	if v.Size() != len(want) || len(v.Special) != len(want) {
		t.Fatalf("lengths: Size %d, Special %d; want %d", v.Size(), len(v.Special), len(want))
	}
	for id, w := range want {
		if string(v.Token(id)) != w.bytes || v.Special[id] != w.special || v.Name(id) != w.name {
			t.Errorf("id %d: bytes %q special %v name %q; want %q %v %q",
				id, v.Token(id), v.Special[id], v.Name(id), w.bytes, w.special, w.name)
		}
	}
	if v.Token(13) != nil {
		t.Errorf("gap id 13 has bytes %q, want nil", v.Token(13))
	}
	if !slices.Equal(v.EOS, []int{10, 11}) {
		t.Errorf("EOS = %v, want [10 11]", v.EOS)
	}
	for name, want := range map[string]int{"Ġab": 5, "<|eot_id|>": 11, " <mask> ": 12, "a": 0} {
		if id, ok := v.ID(name); !ok || id != want {
			t.Errorf("ID(%q) = %d, %v; want %d, true", name, id, ok, want)
		}
	}
	for _, name := range []string{"", "zz", " ab"} {
		if id, ok := v.ID(name); ok {
			t.Errorf("ID(%q) = %d, true; want not found", name, id)
		}
	}

	// A hand-built Vocab has no index: ID scans Names.
	h := &Vocab{}
	for id := range v.Size() {
		h.Add(v.Token(id), v.Special[id], v.Name(id))
	}
	if id, ok := h.ID("Ġab"); !ok || id != 5 {
		t.Errorf("hand-built ID(\"Ġab\") = %d, %v; want 5, true", id, ok)
	}
}

func TestParseVocabErrors(t *testing.T) {
	const byteLevel = `"pre_tokenizer": {"type": "ByteLevel"}, "decoder": {"type": "ByteLevel"}`
	tests := []struct {
		name, json, want string
	}{
		{"syntax", "{\n  \"model\": {\n    \"type\": \"BPE\",,\n  }\n}", "line 3, column 19"},
		{"syntax first line", `{"model": [}`, "line 1, column 12"},
		{"truncated", `{"model": {"type": "BPE"`, "invalid JSON"},
		{"type error", "{\n\"added_tokens\": 5}", "line 2, column"},
		{"empty", ``, "invalid JSON"},
		{"not object", `[]`, "invalid JSON"},
		{"no model", `{` + byteLevel + `}`, "no model"},
		{"unigram", `{` + byteLevel + `, "model": {"type": "Unigram", "vocab": [["a", 0]]}}`, `model.type "Unigram"`},
		{"not byte level", `{"pre_tokenizer": {"type": "Whitespace"}, "decoder": {"type": "WordPiece"}, "model": {"type": "BPE", "vocab": {"a": 0}}}`, "not a byte-level BPE tokenizer"},
		{"no pre_tokenizer", `{"model": {"type": "BPE", "vocab": {"a": 0}}}`, "not a byte-level BPE tokenizer"},
		{"empty token", `{` + byteLevel + `, "model": {"type": "BPE", "vocab": {"": 0}}}`, `empty token`},
		{"negative id", `{` + byteLevel + `, "model": {"type": "BPE", "vocab": {"a": -1}}}`, "want a token id"},
		{"huge id", `{` + byteLevel + `, "model": {"type": "BPE", "vocab": {"a": 99999999999}}}`, "out of range"},
		{"float id", `{` + byteLevel + `, "model": {"type": "BPE", "vocab": {"a": 1.5}}}`, "invalid JSON"},
		{"same id", `{` + byteLevel + `, "model": {"type": "BPE", "vocab": {"a": 0, "b": 0}}}`, "same id 0"},
		{"added no id", `{` + byteLevel + `, "added_tokens": [{"content": "x", "special": true}], "model": {"type": "BPE", "vocab": {"a": 0}}}`, "no id"},
		{"added huge id", `{` + byteLevel + `, "added_tokens": [{"id": 1e9, "content": "x", "special": true}], "model": {"type": "BPE", "vocab": {"a": 0}}}`, "invalid JSON"},
		{"added empty", `{` + byteLevel + `, "added_tokens": [{"id": 1, "content": "", "special": false}], "model": {"type": "BPE", "vocab": {"a": 0}}}`, "empty content"},
		{"no tokens", `{` + byteLevel + `, "model": {"type": "BPE", "vocab": {}}}`, "no tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := ParseVocab([]byte(tt.json))
			if err == nil {
				t.Fatalf("no error; vocab of size %d", v.Size())
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadVocabMissing(t *testing.T) {
	_, err := LoadVocab(filepath.Join("testdata", "no-such-file.json"))
	if err == nil || !strings.Contains(err.Error(), "no-such-file.json") {
		t.Errorf("err = %v, want one naming the file", err)
	}
}

func FuzzParseVocab(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "tokenizer.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"pre_tokenizer": {"type": "ByteLevel"}, "model": {"type": "BPE", "vocab": {"a": 3}}}`))
	f.Add([]byte(`{"added_tokens": [{"id": 0, "content": "", "special": true}], "decoder": {"type": "ByteLevel"}, "model": {"type": "BPE", "vocab": {}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseVocab(data)
		if err != nil {
			return
		}
		n := v.Size()
		if n == 0 || len(v.Special) != n {
			t.Fatalf("inconsistent vocab: %d tokens, %d special", n, len(v.Special))
		}
		for id := range n {
			if !v.Special[id] && len(v.Token(id)) == 0 {
				t.Fatalf("non-special token %d is empty", id)
			}
		}
		for _, id := range v.EOS {
			if id < 0 || id >= n || !v.Special[id] {
				t.Fatalf("EOS id %d is not a special token", id)
			}
		}
	})
}

// Tests on the real Llama-3 tokenizer, fetched by scripts/fetch-tokenizer.sh.

func TestLlama3Vocab(t *testing.T) {
	v := loadLlama3(t)
	if v.Size() != 128256 {
		t.Fatalf("Size() = %d, want 128256", v.Size())
	}
	if v.Name(128001) != "<|end_of_text|>" || !v.Special[128001] || string(v.Token(128001)) != "<|end_of_text|>" {
		t.Errorf("id 128001: name %q special %v bytes %q", v.Name(128001), v.Special[128001], v.Token(128001))
	}
	if !slices.Contains(v.EOS, 128001) || !slices.Contains(v.EOS, 128009) {
		t.Errorf("EOS = %v, want it to contain 128001 and 128009", v.EOS)
	}
	if id, ok := v.ID("<|eot_id|>"); !ok || id != 128009 {
		t.Errorf("ID(<|eot_id|>) = %d, %v; want 128009", id, ok)
	}
	if !bytes.Equal(v.Token(220), []byte{0x20}) || v.Special[220] {
		t.Errorf("token 220 = %q (special %v), want \" \"", v.Token(220), v.Special[220])
	}
	nspecial := 0
	for id := range v.Size() {
		if v.Special[id] {
			nspecial++
			if id < 128000 {
				t.Errorf("id %d (%q) is special", id, v.Name(id))
			}
		}
	}
	if nspecial != 256 {
		t.Errorf("%d special tokens, want 256", nspecial)
	}
	// Byte-level BPE has a single-byte token for every byte.
	single := make(map[byte]bool)
	for id := range v.Size() {
		if tok := v.Token(id); !v.Special[id] && len(tok) == 1 {
			single[tok[0]] = true
		}
	}
	if len(single) != 256 {
		t.Errorf("single-byte tokens cover %d bytes, want 256", len(single))
	}
	// Duplicates are reported, not asserted: a grammar mask handles them
	// anyway (it allows every id whose bytes fit).
	byBytes := make(map[string][]int)
	for id := range v.Size() {
		if tok := v.Token(id); !v.Special[id] {
			byBytes[string(tok)] = append(byBytes[string(tok)], id)
		}
	}
	dups := 0
	for s, ids := range byBytes {
		if len(ids) > 1 {
			dups++
			if dups <= 10 {
				t.Logf("non-special tokens %v have the same bytes %q", ids, s)
			}
		}
	}
	t.Logf("%d byte strings are shared by more than one non-special token", dups)
}

// TestLlama3Workloads decodes the token ids of the mask benchmark workloads
// and compares them with their sentences.
func TestLlama3Workloads(t *testing.T) {
	v := loadLlama3(t)
	for _, name := range workloads {
		t.Run(name, func(t *testing.T) {
			w := loadWorkload(t, name)
			var got []byte
			for _, id := range w.ids {
				if id < 0 || id >= v.Size() {
					t.Fatalf("bad id %d", id)
				}
				if v.Special[id] {
					t.Errorf("id %d (%q) is special", id, v.Name(id))
				}
				got = append(got, v.Token(id)...)
			}
			if !bytes.Equal(got, w.text) {
				i := 0
				for i < len(got) && i < len(w.text) && got[i] == w.text[i] {
					i++
				}
				t.Fatalf("decoded %d ids to %d bytes, want %d; first difference at byte %d", len(w.ids), len(got), len(w.text), i)
			}
		})
	}
}

// VocabFrom gives, from a loaded tokenizer, the Vocab ParseVocab gives
// from its file.
func TestVocabFromTokenizer(t *testing.T) {
	files := []string{"testdata/tokenizer.json", "../../data/models/tiny/tokenizer.json", llama3Path}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Logf("%s: %v (skipped)", f, err)
			continue
		}
		want, err := ParseVocab(data)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := tokenizer.Parse(data)
		if err != nil {
			t.Logf("%s: %v (skipped)", f, err)
			continue
		}
		got := VocabFrom(tok)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: VocabFrom differs from ParseVocab", f)
		}
	}
}

// TestVocabAdd checks a hand-built Vocab: ids in order, bytes and names as
// given, no bytes as nil, and a token's slice that an append cannot spill
// into the next token's bytes.
func TestVocabAdd(t *testing.T) {
	var v Vocab
	for i, tok := range []string{"ab", "", "c"} {
		if id := v.Add([]byte(tok), tok == "", "n"+tok); id != i {
			t.Fatalf("Add(%q) = %d, want %d", tok, id, i)
		}
	}
	if v.Size() != 3 || string(v.Token(0)) != "ab" || v.Token(1) != nil || v.Name(2) != "nc" || !v.Special[1] {
		t.Fatalf("vocab: size %d, tokens %q %q %q, names %q %q %q", v.Size(), v.Token(0), v.Token(1), v.Token(2), v.Name(0), v.Name(1), v.Name(2))
	}
	_ = append(v.Token(0), 'x')
	if string(v.Token(2)) != "c" {
		t.Errorf("an append to token 0 changed token 2 to %q", v.Token(2))
	}
	if id, ok := v.ID("nc"); !ok || id != 2 {
		t.Errorf(`ID("nc") = %d, %v; want 2, true`, id, ok)
	}
}
