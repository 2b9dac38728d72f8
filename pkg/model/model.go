// Package model opens a model (Llama-3.x, Qwen2/2.5, Qwen3: pkg/llama) for sampling: its configuration,
// tokenizer, grammar vocabulary and trie, chat prompt, and weights loaded
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
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/hf"
	"github.com/gasplab/gasp/pkg/infile"
	"github.com/gasplab/gasp/pkg/jsontext"
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

// HasChat reports whether the tokenizer has the Llama 3 chat tokens.
func (m *Model) HasChat() bool {
	for _, s := range []string{"<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"} {
		if _, ok := m.Tokenizer.ID(s); !ok {
			return false
		}
	}
	return true
}

// HasChatML reports whether the tokenizer has ChatML's special tokens
// (<|im_start|>, <|im_end|>: Qwen2, Qwen2.5, Qwen3).
func (m *Model) HasChatML() bool {
	for _, s := range []string{"<|im_start|>", "<|im_end|>"} {
		if id, ok := m.Tokenizer.ID(s); !ok || !m.Tokenizer.IsSpecial(id) {
			return false
		}
	}
	return true
}

// Prompt returns the token ids of text under a template: "chat" (one user
// message of the model's chat template: Llama 3.1 Instruct's where the
// tokenizer has its tokens, else ChatML's, as Qwen's templates render it),
// "raw" (the tokenizer's BOS, if any, and the text), or "" for chat when
// the tokenizer has either, else raw.
func (m *Model) Prompt(text, template string) ([]int, error) {
	switch template {
	case "":
		template = "raw"
		if m.HasChat() || m.HasChatML() {
			template = "chat"
		}
	case "chat", "raw":
	default:
		return nil, fmt.Errorf("unknown template %q (want chat or raw)", template)
	}
	var ids []int
	switch {
	case template == "raw":
		ids = m.Tokenizer.Encode(text, true)
	case m.HasChat():
		ids = m.Tokenizer.ChatPrompt(text, tokenizer.ChatOptions{})
	case m.HasChatML():
		system, err := chatMLSystem(m.Dir)
		if err != nil {
			return nil, err
		}
		if ids, err = m.Tokenizer.ChatMLPrompt(text, tokenizer.ChatMLOptions{System: system}); err != nil {
			return nil, err
		}
	default:
		return nil, errors.New("template chat: the tokenizer has neither Llama 3's chat tokens nor ChatML's")
	}
	if len(ids) == 0 {
		return nil, errors.New("empty prompt")
	}
	return ids, nil
}

// qwenSystems are the system messages that Qwen's ChatML templates write
// when the conversation has none (Qwen2.5's, then Qwen2's); Qwen3's writes
// none.
var qwenSystems = []string{
	"You are Qwen, created by Alibaba Cloud. You are a helpful assistant.",
	"You are a helpful assistant.",
}

// chatMLSystem returns the default system message of the ChatML template in
// dir's tokenizer_config.json: the first of qwenSystems its chat_template
// writes, or "" (none, or no such file). Only that is read of the template:
// its other parts are ChatMLText's.
func chatMLSystem(dir string) (string, error) {
	path := filepath.Join(dir, "tokenizer_config.json")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	data, err := infile.Read(path, maxTokenizerConfigBytes)
	if err != nil {
		return "", err
	}
	var cfg struct {
		ChatTemplate json.RawMessage `json:"chat_template"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		if line, col, ok := jsontext.ErrorPosition(data, err); ok {
			return "", fmt.Errorf("%s:%d:%d: %w", path, line, col, err)
		}
		return "", fmt.Errorf("%s: %w", path, err)
	}
	var template string
	_ = json.Unmarshal(cfg.ChatTemplate, &template) // a list of named templates, or none: no default
	for _, s := range qwenSystems {
		if strings.Contains(template, s) {
			return s, nil
		}
	}
	return "", nil
}

// maxTokenizerConfigBytes bounds tokenizer_config.json (Llama 3's has 50 KB,
// most of it added tokens).
const maxTokenizerConfigBytes = 16 << 20

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
