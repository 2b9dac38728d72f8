package tokenizer

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestSplitBehaviors checks the five behaviors of a Split, and invert, on
// the examples of Hugging Face's documentation of SplitDelimiterBehavior.
func TestSplitBehaviors(t *testing.T) {
	const s = "the-final--countdown"
	for _, c := range []struct {
		behavior string
		invert   bool
		want     []string
	}{
		{"Isolated", false, []string{"the", "-", "final", "-", "-", "countdown"}},
		{"Removed", false, []string{"the", "final", "countdown"}},
		{"MergedWithPrevious", false, []string{"the-", "final-", "-", "countdown"}},
		{"MergedWithNext", false, []string{"the", "-final", "-", "-countdown"}},
		{"Contiguous", false, []string{"the", "-", "final", "--", "countdown"}},
		{"Removed", true, []string{"-", "-", "-"}},
		{"MergedWithPrevious", true, []string{"the", "-final", "-", "-countdown"}},
	} {
		for _, mk := range []func() (preStep, error){
			func() (preStep, error) { return newStringSplit("-", c.behavior, c.invert) },
			func() (preStep, error) { return newRegexSplit("-", c.behavior, c.invert) },
		} {
			sp, err := mk()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			sp.split(s, true, func(p string, _ bool) { got = append(got, p) })
			if !slices.Equal(got, c.want) {
				t.Errorf("%s invert %v: %q, want %q", c.behavior, c.invert, got, c.want)
			}
		}
	}
}

// spJSON returns a small SentencePiece-kind tokenizer.json in the shape of
// Llama 2's: <unk>, <s>, </s>, the 256 byte-fallback tokens <0x00>..<0xFF>
// (ids 3..258), then "▁", "a", "b", "▁a", "ab", "▁ab", "é".
func spJSON(t testing.TB, edit func(m map[string]any)) []byte {
	t.Helper()
	vocab := map[string]int{"<unk>": 0, "<s>": 1, "</s>": 2}
	for b := range 256 {
		vocab[ByteFallbackName(byte(b))] = 3 + b
	}
	for i, s := range []string{"▁", "a", "b", "▁a", "ab", "▁ab", "é"} {
		vocab[s] = 259 + i
	}
	added := func(id int, s string) map[string]any {
		return map[string]any{"id": id, "content": s, "special": true, "single_word": false, "lstrip": false, "rstrip": false, "normalized": false}
	}
	m := map[string]any{
		"added_tokens": []any{added(0, "<unk>"), added(1, "<s>"), added(2, "</s>")},
		"normalizer": map[string]any{"type": "Sequence", "normalizers": []any{
			map[string]any{"type": "Prepend", "prepend": "▁"},
			map[string]any{"type": "Replace", "pattern": map[string]any{"String": " "}, "content": "▁"},
		}},
		"pre_tokenizer": nil,
		"decoder": map[string]any{"type": "Sequence", "decoders": []any{
			map[string]any{"type": "Replace", "pattern": map[string]any{"String": "▁"}, "content": " "},
			map[string]any{"type": "ByteFallback"},
			map[string]any{"type": "Fuse"},
			map[string]any{"type": "Strip", "content": " ", "start": 1, "stop": 0},
		}},
		"model": map[string]any{
			"type": "BPE", "unk_token": "<unk>", "fuse_unk": true, "byte_fallback": true,
			"vocab": vocab, "merges": []any{"▁ a", "a b", "▁a b"},
		},
	}
	if edit != nil {
		edit(m)
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func parseSP(t *testing.T, edit func(m map[string]any)) *Tokenizer {
	t.Helper()
	tok, err := Parse(spJSON(t, edit))
	if err != nil {
		t.Fatal(err)
	}
	if tok.Kind() != SentencePiece {
		t.Fatalf("kind %v", tok.Kind())
	}
	return tok
}

// TestSentencePieceTiny checks the SentencePiece pipeline by hand: the
// prepended "▁", merges over characters, byte fallback, the unknown token
// (fused or not), the decoder's Strip and Metaspace.
func TestSentencePieceTiny(t *testing.T) {
	tok := parseSP(t, nil)
	noFallback := parseSP(t, func(m map[string]any) { m["model"].(map[string]any)["byte_fallback"] = false })
	noFuse := parseSP(t, func(m map[string]any) {
		m["model"].(map[string]any)["byte_fallback"] = false
		m["model"].(map[string]any)["fuse_unk"] = false
	})
	meta := parseSP(t, func(m map[string]any) {
		m["normalizer"] = nil
		m["pre_tokenizer"] = map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true}
		m["decoder"] = map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true}
	})
	for _, c := range []struct {
		tok  *Tokenizer
		name string
		in   string
		want []int
		back string // Decode's result, if not in
	}{
		{tok, "merges", "ab", []int{264}, ""},
		{tok, "no merge across ▁", "a b", []int{262, 259, 261}, ""},
		{tok, "leading space", " ab", []int{259, 264}, ""},
		{tok, "byte fallback", "aé€", []int{262, 265, 3 + 0xE2, 3 + 0x82, 3 + 0xAC}, ""},
		{tok, "invalid UTF-8", "a\xff", []int{262, 3 + 0xFF}, ""},
		{tok, "special", "ab</s>ab", []int{264, 2, 264}, "ab</s> ab"},
		{tok, "empty", "", nil, ""},
		{noFallback, "fused unknown", "€€x", []int{259, 0}, "<unk>"},
		{noFuse, "unknown", "€€x", []int{259, 0, 0, 0}, "<unk><unk><unk>"},
		{meta, "metaspace", "ab ab", []int{264, 264}, ""},
		{meta, "metaspace first", "ab</s>ab", []int{264, 2, 263}, ""},
	} {
		got := c.tok.Encode(c.in, false)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: Encode(%q) = %v, want %v", c.name, c.in, got, c.want)
			continue
		}
		want := c.in
		if c.back != "" {
			want = c.back
		}
		if dec, err := c.tok.Decode(got); err != nil || dec != want {
			t.Errorf("%s: Decode(%v) = %q, %v; want %q", c.name, got, dec, err, want)
		}
	}
	if got := tok.Encode("ab", true); !slices.Equal(got, []int{1, 264}) {
		t.Errorf("Encode with BOS = %v", got)
	}
	for id, want := range map[int]string{3 + 'A': "A", 3 + 0xFF: "\xff", 259: " ", 264: " ab", 2: "</s>"} {
		if got := string(tok.Token(id)); got != want {
			t.Errorf("Token(%d) = %q, want %q", id, got, want)
		}
	}
	if id, ok := tok.ID(" ab"); !ok || id != 264 {
		t.Errorf("ID(\" ab\") = %d, %v", id, ok)
	}
}

// TestByteLevelOptions checks ByteLevel's add_prefix_space and use_regex
// (GPT-2's pattern) and a normalizer on the tiny byte-level tokenizer.
func TestByteLevelOptions(t *testing.T) {
	gpt2 := parseTiny(t, func(m map[string]any) {
		m["pre_tokenizer"] = map[string]any{"type": "ByteLevel", "add_prefix_space": true, "use_regex": true}
		m["normalizer"] = map[string]any{"type": "NFKC"}
	})
	for _, c := range []struct {
		in   string
		want []int
	}{
		{"the", []int{258}},                // " the"
		{"he", []int{' ', 257}},            // " he"
		{"the  the", []int{258, ' ', 258}}, // " the", " ", " the"
		{"\ufb01", []int{' ', 'f', 'i'}},   // NFKC: "ﬁ" is "fi"
		{"<|eot|>the", []int{301, 258}},    // a prefix space after an added token too
		{"the'll", []int{258, '\'', 259}},  // GPT-2's contractions
		{"x123 4", []int{' ', 'x', '1', '2', '3', ' ', '4'}},
	} {
		if got := gpt2.Encode(c.in, false); !slices.Equal(got, c.want) {
			t.Errorf("Encode(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestQwenDigits checks that a Split with Qwen's pattern cuts digits one by
// one and Llama 3's in runs of three.
func TestQwenDigits(t *testing.T) {
	qwen := parseTiny(t, func(m map[string]any) {
		m["pre_tokenizer"].(map[string]any)["pretokenizers"].([]any)[0].(map[string]any)["pattern"] = map[string]any{"Regex": QwenPattern}
	})
	var q, l []string
	qwen.preTokenize("x 12345", true, 0, func(p string) { q = append(q, p) })
	splitLlama3("x 12345", func(p string) bool { l = append(l, p); return true })
	if want := []string{"x", " ", "1", "2", "3", "4", "5"}; !slices.Equal(q, want) {
		t.Errorf("Qwen pieces %q, want %q", q, want)
	}
	if want := []string{"x", " ", "123", "45"}; !slices.Equal(l, want) {
		t.Errorf("Llama 3 pieces %q, want %q", l, want)
	}
	if !strings.Contains(QwenPattern, `|\p{N}|`) {
		t.Error("QwenPattern lost its single-digit alternative")
	}
}
