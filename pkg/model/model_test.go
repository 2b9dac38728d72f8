package model

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCacheLen(t *testing.T) {
	for _, c := range [][2]int{{1, 256}, {256, 256}, {257, 384}, {385, 512}, {600, 768}, {769, 1024}, {1025, 1536}, {1537, 2048}, {8300, 12288}} {
		if got := CacheLen(c[0]); got != c[1] {
			t.Errorf("CacheLen(%d) = %d, want %d", c[0], got, c[1])
		}
	}
}

func TestOpenTiny(t *testing.T) {
	m, err := Open(context.Background(), "../../data/models/tiny")
	if err != nil {
		t.Fatal(err)
	}
	if m.Vocab.Size() != m.Tokenizer.VocabSize() || len(m.Vocab.EOS) == 0 {
		t.Errorf("vocabulary of %d tokens (tokenizer %d), EOS %v", m.Vocab.Size(), m.Tokenizer.VocabSize(), m.Vocab.EOS)
	}
	p, err := m.Prompt("hi", "")
	if err != nil || len(p) < 2 {
		t.Fatalf("Prompt = %v, %v", p, err)
	}
	if _, err := m.Prompt("hi", "jinja"); err == nil {
		t.Error("template jinja accepted")
	}
	if err := CheckMemory(m.Dir, 1<<40, 1<<20, "--batch huge"); err == nil {
		t.Error("a session of 2^40 rows passes the memory check")
	}
	w, err := m.Load(64)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.VocabSize() != m.Config.VocabSize || w.WithSeq(10).Seq != min(256, w.MaxSeq()) {
		t.Errorf("VocabSize %d, WithSeq(10).Seq %d", w.VocabSize(), w.WithSeq(10).Seq)
	}
}

// A malformed tokenizer_config.json is an error naming its line and column
// when the chat template is read from it, not a prompt without its system
// message.
func TestChatMLSystemBadConfig(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte("{\n  \"chat_template\": [1,\n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readTokenizerConfig(dir); err == nil || !strings.Contains(err.Error(), "tokenizer_config.json:3:1") {
		t.Errorf("readTokenizerConfig: %v, want an error at tokenizer_config.json:3:1", err)
	}
	if c, err := readTokenizerConfig(t.TempDir()); c.template != "" || c.chatMLSystem() != "" || err != nil {
		t.Errorf("no tokenizer_config.json: %+v, %v", c, err)
	}
}
