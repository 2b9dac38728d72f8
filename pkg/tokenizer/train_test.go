package tokenizer

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestTrainFirstMerges(t *testing.T) {
	texts := []string{"ab ab ab aab"}
	data, err := Train(texts, TrainOptions{VocabSize: 256 + 2 + 5})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, data)
	}
	// Pieces: "ab", " ab"×2, " aab": "ab" occurs 4 times, " a" 3 times,
	// "aa" once.
	if got := string(tok.Token(256)); got != "ab" {
		t.Errorf("first merge %q, want \"ab\"", got)
	}
	if tok.VocabSize() != 263 {
		t.Errorf("vocab size %d, want 263", tok.VocabSize())
	}
	if id, ok := tok.ID("<|eot_id|>"); !ok || !tok.IsSpecial(id) || id != 262 {
		t.Errorf("<|eot_id|>: id %d %v", id, ok)
	}
	if bos, ok := tok.BOS(); !ok || tok.Name(bos) != "<|begin_of_text|>" {
		t.Errorf("BOS %d %v", bos, ok)
	}
	if ids := tok.Encode("ab", false); len(ids) != 1 || ids[0] != 256 {
		t.Errorf("Encode(ab) = %v", ids)
	}
}

func TestTrainRoundTrip(t *testing.T) {
	var texts []string
	paths, _ := filepath.Glob("../../data/gad/*/*/prompt.txt")
	for _, p := range paths[:min(len(paths), 8)] {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	texts = append(texts, "héllo wörld 123456 <|eot_id|>\n\n  tabs\t\tand  spaces ")
	data, err := Train(texts, TrainOptions{VocabSize: 500})
	if err != nil {
		t.Fatal(err)
	}
	data2, err := Train(texts, TrainOptions{VocabSize: 500})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, data2) {
		t.Error("Train is not deterministic")
	}
	tok, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if tok.VocabSize() != 500 {
		t.Errorf("vocab size %d, want 500", tok.VocabSize())
	}
	for _, s := range append(texts, "unseen ☃ text\x00\xff", "<|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>") {
		ids := tok.Encode(s, false)
		got, err := tok.Decode(ids)
		if err != nil || got != s {
			t.Errorf("Decode(Encode(%.40q)) = %.40q, %v", s, got, err)
		}
		if len(s) > 1000 && len(ids)*2 > len(s) {
			t.Errorf("%d bytes encode to %d tokens: merges barely compress", len(s), len(ids))
		}
	}
	ids := tok.ChatPrompt("hello", ChatOptions{})
	if bos, _ := tok.BOS(); ids[0] != bos {
		t.Errorf("chat prompt starts with %d", ids[0])
	}
}

func TestTrainErrors(t *testing.T) {
	if _, err := Train(nil, TrainOptions{VocabSize: 100}); err == nil {
		t.Error("vocab 100: no error")
	}
	if _, err := Train(nil, TrainOptions{VocabSize: 300, SpecialTokens: []string{"a", "a"}}); err == nil {
		t.Error("repeated special: no error")
	}
	if _, err := Train(nil, TrainOptions{VocabSize: 300, BOS: "<x>"}); err == nil {
		t.Error("unknown BOS: no error")
	}
}
