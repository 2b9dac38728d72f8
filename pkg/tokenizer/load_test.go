package tokenizer

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// tinyJSON returns a small byte-level BPE tokenizer.json in the shape of
// Llama 3's: ids 0..255 are the bytes, then " t", "he", " the", "ll",
// "ab" (a token without a merge) and two special tokens. edit may change
// the description before it is written.
func tinyJSON(t testing.TB, edit func(m map[string]any)) []byte {
	t.Helper()
	vocab := map[string]int{}
	for b := range 256 {
		vocab[string(byteToRune[b])] = b
	}
	vocab["Ġt"] = 256
	vocab["he"] = 257
	vocab["Ġthe"] = 258
	vocab["ll"] = 259
	vocab["ab"] = 260
	m := map[string]any{
		"version":    "1.0",
		"truncation": nil,
		"padding":    nil,
		"added_tokens": []any{
			map[string]any{"id": 300, "content": "<|bos|>", "special": true, "single_word": false, "lstrip": false, "rstrip": false, "normalized": false},
			map[string]any{"id": 301, "content": "<|eot|>", "special": true, "single_word": false, "lstrip": false, "rstrip": false, "normalized": false},
		},
		"normalizer": nil,
		"pre_tokenizer": map[string]any{
			"type": "Sequence",
			"pretokenizers": []any{
				map[string]any{"type": "Split", "pattern": map[string]any{"Regex": Llama3Pattern}, "behavior": "Isolated", "invert": false},
				map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false},
			},
		},
		"post_processor": map[string]any{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true},
		"decoder":        map[string]any{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
		"model": map[string]any{
			"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": nil,
			"end_of_word_suffix": nil, "fuse_unk": false, "byte_fallback": false, "ignore_merges": true,
			"vocab":  vocab,
			"merges": []any{"Ġ t", "h e", "Ġt he", "l l"},
		},
	}
	if edit != nil {
		edit(m)
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func model(m map[string]any) map[string]any { return m["model"].(map[string]any) }

func parseTiny(t testing.TB, edit func(m map[string]any)) *Tokenizer {
	t.Helper()
	tok, err := Parse(tinyJSON(t, edit))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestParseTiny(t *testing.T) {
	tok := parseTiny(t, nil)
	pairs := parseTiny(t, func(m map[string]any) {
		model(m)["merges"] = [][]string{{"Ġ", "t"}, {"h", "e"}, {"Ġt", "he"}, {"l", "l"}}
	})
	for _, s := range []string{" the", "hello", "ab", "abab", " the<|eot|>x", "tell"} {
		a, b := tok.Encode(s, false), pairs.Encode(s, false)
		if !slices.Equal(a, b) {
			t.Errorf("%q: string merges %v, pair merges %v", s, a, b)
		}
	}
	for _, c := range []struct {
		s    string
		want []int
	}{
		{" the", []int{258}},
		{"hello", []int{257, 259, 'o'}},
		{"ab", []int{260}},                  // ignore_merges: a token needs no merge
		{"abab", []int{'a', 'b', 'a', 'b'}}, // no merge makes "ab"
		{" the<|eot|>x", []int{258, 301, 'x'}},
	} {
		if got := tok.Encode(c.s, false); !slices.Equal(got, c.want) {
			t.Errorf("Encode(%q) = %v, want %v", c.s, got, c.want)
		}
	}
	noIgnore := parseTiny(t, func(m map[string]any) { model(m)["ignore_merges"] = false })
	if got := noIgnore.Encode("ab", false); !slices.Equal(got, []int{'a', 'b'}) {
		t.Errorf("without ignore_merges: Encode(ab) = %v", got)
	}
	if id, ok := tok.BOS(); ok {
		t.Errorf("BOS = %d without a template or a known name", id)
	}
	if got := tok.Encode("x", true); !slices.Equal(got, []int{'x'}) {
		t.Errorf("Encode(x, true) without BOS = %v", got)
	}
	if tok.VocabSize() != 302 || tok.Valid(280) || tok.Token(280) != nil {
		t.Errorf("VocabSize %d; the gap at 280 must be invalid", tok.VocabSize())
	}
	if _, err := tok.Decode([]int{280}); err == nil {
		t.Error("Decode of an id in a gap: no error")
	}
}

func TestParseTemplate(t *testing.T) {
	tok := parseTiny(t, func(m map[string]any) {
		m["post_processor"] = map[string]any{
			"type": "Sequence",
			"processors": []any{
				map[string]any{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true},
				map[string]any{
					"type": "TemplateProcessing",
					"single": []any{
						map[string]any{"SpecialToken": map[string]any{"id": "<|bos|>", "type_id": 0}},
						map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}},
						map[string]any{"SpecialToken": map[string]any{"id": "<|eot|>", "type_id": 0}},
					},
					"pair": []any{},
					"special_tokens": map[string]any{
						"<|bos|>": map[string]any{"id": "<|bos|>", "ids": []int{300}, "tokens": []string{"<|bos|>"}},
						"<|eot|>": map[string]any{"id": "<|eot|>", "ids": []int{301}, "tokens": []string{"<|eot|>"}},
					},
				},
			},
		}
	})
	if got := tok.Encode(" the", true); !slices.Equal(got, []int{300, 258, 301}) {
		t.Errorf("Encode with template = %v", got)
	}
	bos, okB := tok.BOS()
	eos, okE := tok.EOS()
	if bos != 300 || eos != 301 || !okB || !okE {
		t.Errorf("BOS, EOS = %d, %d", bos, eos)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"normalizer", func(m map[string]any) { m["normalizer"] = map[string]any{"type": "BertNormalizer"} }, `unsupported normalizer "BertNormalizer"`},
		{"replace regex", func(m map[string]any) {
			m["normalizer"] = map[string]any{"type": "Replace", "pattern": map[string]any{"Regex": " +"}, "content": " "}
		}, `unsupported normalizer Replace`},
		{"lookahead", func(m map[string]any) {
			m["pre_tokenizer"].(map[string]any)["pretokenizers"].([]any)[0].(map[string]any)["pattern"] = map[string]any{"Regex": `a(?=b)|\s+`}
		}, "lookaround other than a final"},
		{"empty match", func(m map[string]any) {
			m["pre_tokenizer"].(map[string]any)["pretokenizers"].([]any)[0].(map[string]any)["pattern"] = map[string]any{"Regex": `\s*`}
		}, "matches the empty string"},
		{"bad regex", func(m map[string]any) {
			m["pre_tokenizer"].(map[string]any)["pretokenizers"].([]any)[0].(map[string]any)["pattern"] = map[string]any{"Regex": `(a`}
		}, "unsupported pre-tokenizer pattern"},
		{"backreference", func(m map[string]any) {
			m["pre_tokenizer"].(map[string]any)["pretokenizers"].([]any)[0].(map[string]any)["pattern"] = map[string]any{"Regex": `(a)\1`}
		}, `escape \1`},
		{"whitespace", func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "Whitespace"}
		}, `unsupported pre_tokenizer "Whitespace"`},
		{"behavior", func(m map[string]any) {
			m["pre_tokenizer"].(map[string]any)["pretokenizers"].([]any)[0].(map[string]any)["behavior"] = "Weird"
		}, `behavior "Weird"`},
		{"sp decoder", func(m map[string]any) {
			m["decoder"] = map[string]any{"type": "Sequence", "decoders": []any{map[string]any{"type": "ByteFallback"}}}
		}, `both byte-level`},
		{"no pre_tokenizer", func(m map[string]any) { m["pre_tokenizer"] = nil }, "unsupported pre_tokenizer null"},
		{"decoder", func(m map[string]any) { m["decoder"] = map[string]any{"type": "WordPiece"} }, `unsupported decoder "WordPiece"`},
		{"post_processor", func(m map[string]any) { m["post_processor"] = map[string]any{"type": "BertProcessing"} }, `unsupported post_processor "BertProcessing"`},
		{"model type", func(m map[string]any) { model(m)["type"] = "WordPiece" }, `unsupported model.type "WordPiece"`},
		{"neither kind", func(m map[string]any) { m["pre_tokenizer"] = nil; m["decoder"] = map[string]any{"type": "WordPiece"} }, `not a byte-level BPE tokenizer`},
		{"dropout", func(m map[string]any) { model(m)["dropout"] = 0.1 }, "unsupported model.dropout"},
		{"suffix", func(m map[string]any) { model(m)["end_of_word_suffix"] = "</w>" }, "unsupported model.end_of_word_suffix"},
		{"lstrip", func(m map[string]any) {
			m["added_tokens"].([]any)[1].(map[string]any)["lstrip"] = true
		}, `added_tokens[1] "<|eot|>": unsupported lstrip`},
		{"merge token", func(m map[string]any) { model(m)["merges"] = []any{"Ġ t", "x yz"} }, `merge 1: token "yz" is not in the vocab`},
		{"merged token", func(m map[string]any) { model(m)["merges"] = []any{"a c"} }, `merge 0: merged token "ac" is not in the vocab`},
		{"merge form", func(m map[string]any) { model(m)["merges"] = []any{"a b c"} }, "two tokens separated by one space"},
		{"merge pair", func(m map[string]any) { model(m)["merges"] = []any{[]string{"a", "b", "c"}} }, "a pair of tokens"},
		{"byte", func(m map[string]any) { delete(model(m)["vocab"].(map[string]int), "Ġ") }, "no token \"Ġ\" for byte 0x20"},
		{"vocab id", func(m map[string]any) { model(m)["vocab"].(map[string]int)["zz"] = -3 }, "want a token id"},
		{"vocab dup id", func(m map[string]any) { model(m)["vocab"].(map[string]int)["zz"] = 5 }, "have the same id 5"},
		{"no merges", func(m map[string]any) { delete(model(m), "merges") }, "model.merges is missing"},
		{"no model", func(m map[string]any) { delete(m, "model") }, "no model"},
	} {
		_, err := Parse(tinyJSON(t, c.edit))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one with %q", c.name, err, c.want)
		}
	}
}

func TestParseMalformed(t *testing.T) {
	data := tinyJSON(t, nil)
	for _, c := range []struct {
		name string
		data string
		want string
	}{
		{"truncated", string(data[:len(data)/2]), "invalid JSON"},
		{"syntax", "{\n  \"model\": {\n    \"type\": \"BPE\",,\n", "line 3, column 19"},
		{"type", "{\n  \"added_tokens\": 5\n}", "line 2, column 19"},
		{"vocab type", strings.Replace(string(data), `"vocab": {`, `"vocab": {"zz": "x", `, 1), "want a token id"},
		{"empty", "", "invalid JSON"},
		{"null", "null", "no model"},
	} {
		_, err := Parse([]byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one with %q", c.name, err, c.want)
		}
	}
	// A position in model.vocab counts from the start of the file.
	bad := strings.Replace(string(data), `"Ġthe": 258`, `"Ġthe": 2.5`, 1)
	_, err := Parse([]byte(bad))
	line := 1 + strings.Count(bad[:strings.Index(bad, "2.5")], "\n")
	if want := "line " + itoa(line) + ", column"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("bad id: error %v, want one with %q", err, want)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestByteLevel(t *testing.T) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	enc := ByteLevelEncode(all)
	dec, err := ByteLevelDecode(enc)
	if err != nil || !slices.Equal(dec, all) {
		t.Fatalf("ByteLevelDecode(ByteLevelEncode(all bytes)) = %v, %v", dec, err)
	}
	if got := ByteLevelEncode([]byte(" the\n")); got != "ĠtheĊ" {
		t.Errorf("ByteLevelEncode = %q", got)
	}
	if ByteLevelRune(' ') != 'Ġ' || ByteLevelRune('a') != 'a' {
		t.Error("ByteLevelRune")
	}
	for _, bad := range []string{" ", "ń", "日", "\xff"} {
		if _, err := ByteLevelDecode(bad); err == nil {
			t.Errorf("ByteLevelDecode(%q): no error", bad)
		}
	}
}
