package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/hf"
	"github.com/gasplab/gasp/pkg/llama"
	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/tokenizer"
)

// LlamaLM adapts a llama.Model to lm.Model, so that the samplers, which see
// models only through pkg/lm, can run it. Its sessions have caches of Seq
// positions per row (0: the model's MaxSeq); see WithSeq.
type LlamaLM struct {
	*llama.Model
	Seq int
}

// VocabSize returns the size of the model's output layer.
func (m LlamaLM) VocabSize() int { return m.Config().VocabSize }

// NewSession starts a batched decoding session of rows rows.
func (m LlamaLM) NewSession(rows int) (lm.Session, error) {
	s, err := m.Model.NewSessionSeq(rows, m.Seq)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return s, nil
}

// Model is a Llama model directory opened for sampling: its configuration,
// tokenizer and grammar vocabulary. Load reads the weights.
type Model struct {
	Dir       string
	Config    llama.Config
	Tokenizer *tokenizer.Tokenizer
	Vocab     *gcd.Vocab // the tokenizer's tokens, EOS set from config.json
	Trie      *gcd.Trie  // the vocabulary's trie, shared by every grammar's masker
}

// OpenModel opens a model: ref is a directory, or a Hugging Face hub id
// resolved (and downloaded when missing) by hf.Resolve. The weights are not
// read until Load.
func OpenModel(ctx context.Context, ref string) (*Model, error) {
	dir := ref
	if _, err := os.Stat(ref); err != nil {
		if dir, err = hf.Resolve(ctx, ref, hf.Options{}); err != nil {
			return nil, fmt.Errorf("model %s: %w", ref, err)
		}
	}
	cfg, err := llama.LoadConfig(dir)
	if err != nil {
		return nil, err
	}
	tokPath := filepath.Join(dir, "tokenizer.json")
	tok, err := tokenizer.Load(tokPath)
	if err != nil {
		return nil, err
	}
	vocab, err := gcd.LoadVocab(tokPath)
	if err != nil {
		return nil, err
	}
	if vocab.Size() > cfg.VocabSize {
		return nil, fmt.Errorf("model %s: tokenizer has %d tokens, model only %d", dir, vocab.Size(), cfg.VocabSize)
	}
	if len(cfg.EOSTokenIDs) > 0 {
		vocab.EOS = append([]int(nil), cfg.EOSTokenIDs...)
	}
	if len(vocab.EOS) == 0 {
		return nil, fmt.Errorf("model %s: no end-of-sequence token: neither config.json nor tokenizer.json names one", dir)
	}
	return &Model{Dir: dir, Config: cfg, Tokenizer: tok, Vocab: vocab, Trie: gcd.NewTrie(vocab)}, nil
}

// HasChat reports whether the tokenizer has the Llama 3 chat tokens.
func (m *Model) HasChat() bool {
	for _, s := range []string{"<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"} {
		if _, ok := m.Tokenizer.ID(s); !ok {
			return false
		}
	}
	return true
}

// Prompt returns the token ids of text under a template: "chat" (one user
// message of the Llama 3.1 Instruct template), "raw" (BOS and the text), or
// "" for chat when the tokenizer has the chat tokens, else raw.
func (m *Model) Prompt(text, template string) ([]int, error) {
	switch template {
	case "":
		template = "raw"
		if m.HasChat() {
			template = "chat"
		}
	case "chat", "raw":
	default:
		return nil, fmt.Errorf("unknown template %q (want chat or raw)", template)
	}
	var ids []int
	if template == "chat" {
		if !m.HasChat() {
			return nil, errors.New("template chat: the tokenizer has no Llama 3 chat tokens")
		}
		ids = m.Tokenizer.ChatPrompt(text, tokenizer.ChatOptions{})
	} else {
		ids = m.Tokenizer.Encode(text, true)
	}
	if len(ids) == 0 {
		return nil, errors.New("empty prompt")
	}
	return ids, nil
}

// Load reads the weights, with KV caches of maxSeq positions (prompt and
// completion), and returns the model as an lm.Model. Close it when done.
func (m *Model) Load(maxSeq int) (LlamaLM, error) {
	if maxSeq > m.Config.MaxPositionEmbeddings {
		return LlamaLM{}, fmt.Errorf("model %s: %d positions needed, the model has %d", m.Dir, maxSeq, m.Config.MaxPositionEmbeddings)
	}
	lm, err := llama.Load(m.Dir, llama.Options{MaxSeq: maxSeq})
	if err != nil {
		return LlamaLM{}, err
	}
	return LlamaLM{Model: lm}, nil
}

// WithSeq returns the model with sessions whose caches hold n positions,
// rounded up to the next of 256, 384, 512, 768, 1024, 1536, … (so that few
// cache lengths, each compiling its own graphs, serve every task) and at
// most the loaded model's MaxSeq. A decoding step attends over the whole
// cache: a task of short prompts should not pay for the longest prompt of
// the experiment.
func (m LlamaLM) WithSeq(n int) LlamaLM {
	m.Seq = min(CacheLen(n), m.MaxSeq())
	return m
}

// CacheLen rounds n up to the next of 256, 384, 512, 768, 1024, 1536, …
func CacheLen(n int) int {
	size := 256
	for size < n {
		if size&(size-1) == 0 { // a power of two: next is 1.5×
			size += size / 2
		} else {
			size += size / 3
		}
	}
	return size
}
