package tokenizer

import (
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzTokenizer returns the Llama-3 tokenizer when it has been fetched, else
// the tiny one of load_test.go, so that the fuzz targets run anywhere.
func fuzzTokenizer(f *testing.F) *Tokenizer {
	if _, err := os.Stat(llama3Path); err == nil {
		if tok, err := llama3(); err == nil {
			return tok
		}
	}
	return parseTiny(f, nil)
}

// FuzzRoundTrip checks Decode(Encode(s)) == s, with and without special
// tokens as text, and, for short valid UTF-8, the pre-tokenizer against the
// reference regex engine.
func FuzzRoundTrip(f *testing.F) {
	tok := fuzzTokenizer(f)
	for _, s := range []string{"", "Hello world", "  \n  word", "it'S 'll", "🦙.cpp<|eot_id|>", "12345 ½",
		"\xff\xfe", "\u0085\ufeff\u00a0\u3000", "नमस्ते", "<|begin_of_text|", "\r\n\r\n\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, o := range []EncodeOptions{{}, {SpecialAsText: true}, {AddSpecial: true}} {
			ids := tok.EncodeWith(s, o)
			got, err := tok.AppendDecode(nil, ids, DecodeOptions{SkipSpecial: o.AddSpecial})
			if err != nil {
				t.Fatal(err)
			}
			if o.AddSpecial {
				// The skipped specials may include some from s itself.
				if ids2 := tok.EncodeWith(s, EncodeOptions{}); len(ids) < len(ids2) {
					t.Fatalf("AddSpecial gave fewer ids: %v < %v", ids, ids2)
				}
				continue
			}
			if string(got) != s {
				t.Fatalf("Decode(EncodeWith(%q, %+v)) = %q (ids %v)", s, o, got, ids)
			}
		}
		if len(s) <= 64 && utf8.ValidString(s) {
			if got, want := scanSplit(s), refSplit(s); !slices.Equal(got, want) {
				t.Fatalf("split(%q) = %q, reference %q", s, got, want)
			}
		}
	})
}

// FuzzParse feeds arbitrary bytes to the tokenizer.json parser: it must
// return a tokenizer or an error, never panic; a tokenizer it returns must
// encode and decode.
func FuzzParse(f *testing.F) {
	tiny := string(tinyJSON(f, nil))
	f.Add(tiny)
	f.Add(strings.Replace(tiny, `"Ġ t"`, `["Ġ", "t"]`, 1))
	f.Add(strings.Replace(tiny, `"ignore_merges": true`, `"ignore_merges": false`, 1))
	f.Add(strings.Replace(tiny, `"type": "ByteLevel",`, `"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<|bos|>"}}, {"Sequence": {"id": "A"}}], "special_tokens": {"<|bos|>": {"ids": [300]}},`, 1))
	f.Add(`{"model": {"type": "BPE", "vocab": {"a": 4194304}, "merges": []}}`)
	f.Add(`{"model": {"vocab": {"\ud800": 1, "\u00e9\"\\": 2}, "merges": ["a b"]}}`)
	f.Add("")
	f.Add("null")
	f.Add(`{"added_tokens": [{"id": -1}]}`)
	sp := string(spJSON(f, nil))
	f.Add(sp)
	f.Add(strings.Replace(sp, `"pre_tokenizer":null`, `"pre_tokenizer":{"type":"Metaspace","replacement":"▁","prepend_scheme":"first","split":true}`, 1))
	f.Add(string(tinyJSON(f, func(m map[string]any) {
		m["pre_tokenizer"] = map[string]any{"type": "ByteLevel", "add_prefix_space": true, "use_regex": true}
		m["normalizer"] = map[string]any{"type": "NFKC"}
	})))
	f.Add(string(tinyJSON(f, func(m map[string]any) {
		m["pre_tokenizer"].(map[string]any)["pretokenizers"].([]any)[0].(map[string]any)["pattern"] = map[string]any{"Regex": `\p{N}{1,3}|[^\s\p{L}]+$|\s+(?!\S)|\s+`}
	})))
	f.Fuzz(func(t *testing.T, data string) {
		tok, err := Parse([]byte(data))
		if err != nil {
			return
		}
		for _, s := range []string{"Hello world", " the<|bos|>x", "\xff 12345 \n\n"} {
			ids := tok.Encode(s, true)
			if _, err := tok.Decode(ids); err != nil {
				t.Fatalf("Decode(Encode(%q)): %v", s, err)
			}
			if got, _ := tok.Decode(tok.Encode(s, false)); exactRoundTrip(tok) && got != s && !strings.Contains(s, "<|") {
				t.Fatalf("round trip of %q: %q", s, got)
			}
		}
	})
}

// exactRoundTrip reports whether the tokenizer's pipeline keeps every text:
// byte-level, no normalizer, no prefix space.
func exactRoundTrip(tok *Tokenizer) bool {
	if tok.Kind() != ByteLevel || tok.norm != nil {
		return false
	}
	for _, p := range tok.pre {
		if bl, ok := p.(*byteLevelStep); ok && bl.prefix {
			return false
		}
	}
	return true
}
