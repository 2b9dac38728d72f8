// Package model opens a model (Llama-3.x, Qwen2/2.5, Qwen3: pkg/llama) for sampling: its configuration,
// tokenizer, grammar vocabulary and trie, chat prompt (chat.go: the template
// chosen from the model's files), and weights loaded
// with sessions sized to the task. It is the one adapter between pkg/llama
// and pkg/lm, so that notebooks and commands need neither the grid runner
// nor their own glue.
//
//	m, err := model.Open(ctx, "data/models/tiny") // or a Hugging Face hub id
//	prompt, err := m.Prompt(text, "")             // chat template when the tokenizer has one
//	weights, err := m.Load(len(prompt) + maxNew + 1)
//	defer weights.Close()
//	// weights is an lm.Model; m.Vocab and m.Trie make grammar masks.
package model

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/hf"
	"github.com/gasplab/gasp/pkg/llama"
	"github.com/gasplab/gasp/pkg/tokenizer"
)

// Model is a model directory opened for sampling: its configuration,
// tokenizer and grammar vocabulary. Load reads the weights.
type Model struct {
	Dir       string
	Config    llama.Config
	Tokenizer *tokenizer.Tokenizer
	Vocab     *gcd.Vocab // the tokenizer's tokens, EOS from generation_config.json and config.json (gcd.ModelEOS)
	Trie      *gcd.Trie  // the vocabulary's trie, shared by every grammar's masker
}

// Open opens a model: ref is a directory, or a Hugging Face hub id
// resolved (and downloaded when missing) by hf.Resolve. The weights are not
// read until Load.
func Open(ctx context.Context, ref string) (*Model, error) {
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
	tok, err := tokenizer.Load(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return nil, err
	}
	vocab := gcd.VocabFrom(tok)
	if vocab.Size() > cfg.VocabSize {
		return nil, fmt.Errorf("model %s: tokenizer has %d tokens, model only %d", dir, vocab.Size(), cfg.VocabSize)
	}
	if vocab.EOS, err = gcd.ModelEOS(dir, vocab); err != nil {
		return nil, fmt.Errorf("model %s: %w", dir, err)
	}
	if len(vocab.EOS) == 0 {
		return nil, fmt.Errorf("model %s: no end-of-sequence token: neither generation_config.json, config.json nor tokenizer.json names one", dir)
	}
	return &Model{Dir: dir, Config: cfg, Tokenizer: tok, Vocab: vocab, Trie: gcd.NewTrie(vocab)}, nil
}

// Load reads the weights, with KV caches of maxSeq positions (prompt and
// completion), and returns them as an lm.Model. Close it when done.
func (m *Model) Load(maxSeq int) (LM, error) {
	if maxSeq > m.Config.MaxPositionEmbeddings {
		return LM{}, fmt.Errorf("model %s: %d positions needed, the model has %d", m.Dir, maxSeq, m.Config.MaxPositionEmbeddings)
	}
	w, err := llama.Load(m.Dir, llama.Options{MaxSeq: maxSeq})
	if err != nil {
		return LM{}, err
	}
	return LM{Model: w}, nil
}

// Decode returns the text of token ids.
func (m *Model) Decode(ids []int) (string, error) { return m.Tokenizer.Decode(ids) }
