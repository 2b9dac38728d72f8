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
// models only through pkg/lm, can run it.
type LlamaLM struct{ *llama.Model }

// VocabSize returns the size of the model's output layer.
func (m LlamaLM) VocabSize() int { return m.Config().VocabSize }

// NewSession starts a batched decoding session of rows rows.
func (m LlamaLM) NewSession(rows int) (lm.Session, error) {
	s, err := m.Model.NewSession(rows)
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
	return LlamaLM{lm}, nil
}
