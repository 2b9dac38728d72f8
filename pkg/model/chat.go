package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gasplab/gasp/pkg/infile"
	"github.com/gasplab/gasp/pkg/jsontext"
	"github.com/gasplab/gasp/pkg/tokenizer"
)

// HasChat reports whether the tokenizer has the Llama 3 chat tokens.
func (m *Model) HasChat() bool { return hasLlama3Chat(m.Tokenizer) }

// HasChatML reports whether the tokenizer has ChatML's special tokens
// (<|im_start|>, <|im_end|>: Qwen2, Qwen2.5, Qwen3).
func (m *Model) HasChatML() bool { return hasChatML(m.Tokenizer) }

func hasLlama3Chat(tok *tokenizer.Tokenizer) bool {
	for _, s := range []string{"<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"} {
		if _, ok := tok.ID(s); !ok {
			return false
		}
	}
	return true
}

func hasChatML(tok *tokenizer.Tokenizer) bool {
	for _, s := range []string{"<|im_start|>", "<|im_end|>"} {
		if id, ok := tok.ID(s); !ok || !tok.IsSpecial(id) {
			return false
		}
	}
	return true
}

// Prompt returns the token ids of text under a template: "chat" (one user
// message in the model's chat template), "raw" (the tokenizer's BOS, if
// any, and the text), or "" for chat when the model has a chat template,
// else raw.
//
// The chat template is Llama 3.1 Instruct's where the tokenizer has its
// tokens, else ChatML's (as Qwen's templates render it, with their default
// system message) where it has those, else the chat_template of
// tokenizer_config.json when it is one that tokenizer.LookupChatFormat
// knows (Mistral-7B-Instruct's, Gemma 3's). Any other chat_template is an
// error naming it: gasp does not interpret Jinja, and a prompt in a
// different layout than the model was tuned on would go unnoticed.
func (m *Model) Prompt(text, template string) ([]int, error) {
	return prompt(m.Dir, m.Tokenizer, text, template)
}

func prompt(dir string, tok *tokenizer.Tokenizer, text, template string) ([]int, error) {
	switch template {
	case "", "chat", "raw":
	default:
		return nil, fmt.Errorf("unknown template %q (want chat or raw)", template)
	}
	var cfg tokenizerConfig
	if !hasLlama3Chat(tok) && template != "raw" {
		var err error
		if cfg, err = readTokenizerConfig(dir); err != nil {
			return nil, err
		}
	}
	if template == "" {
		template = "raw"
		if hasLlama3Chat(tok) || hasChatML(tok) || cfg.template != "" {
			template = "chat"
		}
	}
	var ids []int
	var err error
	switch {
	case template == "raw":
		ids = tok.Encode(text, true)
	case hasLlama3Chat(tok):
		ids = tok.ChatPrompt(text, tokenizer.ChatOptions{})
	case hasChatML(tok):
		ids, err = tok.ChatMLPrompt(text, tokenizer.ChatMLOptions{System: cfg.chatMLSystem()})
	default:
		ids, err = formatPrompt(tok, cfg, text)
	}
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, errors.New("empty prompt")
	}
	return ids, nil
}

// formatPrompt renders text as the one user message of cfg's chat template,
// which must be one tokenizer.LookupChatFormat knows, rendered with the
// bos_token and eos_token the file names.
func formatPrompt(tok *tokenizer.Tokenizer, cfg tokenizerConfig, text string) ([]int, error) {
	if cfg.template == "" {
		return nil, fmt.Errorf("template chat: the tokenizer has neither Llama 3's chat tokens nor ChatML's, and %s has no chat_template", cfg.path)
	}
	f, ok := tokenizer.LookupChatFormat(cfg.template)
	if !ok {
		return nil, unknownTemplate(cfg)
	}
	for _, c := range [][2]string{{"bos_token", f.BOS}, {"eos_token", f.EOS}} {
		if got := cfg.tokens[c[0]]; c[1] != "" && got != "" && got != c[1] {
			return nil, fmt.Errorf("template chat: %s: %s is %q, but gasp renders its chat template (%s) with %q", cfg.path, c[0], got, f.Name, c[1])
		}
	}
	return tok.ChatFormatPrompt(f, []tokenizer.Message{{Role: "user", Content: text}})
}

// unknownTemplate is the error for a chat_template gasp does not render.
func unknownTemplate(cfg tokenizerConfig) error {
	kind := "a chat template"
	switch {
	case strings.Contains(cfg.template, "[INST]"):
		kind = "an [INST] template (Mistral or Llama 2 style)"
	case strings.Contains(cfg.template, "<start_of_turn>"):
		kind = "a <start_of_turn> template (Gemma style)"
	}
	var known []string
	for _, f := range tokenizer.ChatFormats() {
		known = append(known, f.Name)
	}
	return fmt.Errorf("template chat: the chat_template of %s (sha256 %.16s…) is %s that gasp does not render: "+
		"it renders Llama 3.1's, Qwen's ChatML and, by their exact text, %s; use --template raw and write the prompt's text yourself",
		cfg.path, tokenizer.TemplateSHA256(cfg.template), kind, strings.Join(known, ", "))
}

// tokenizerConfig is what gasp reads of tokenizer_config.json.
type tokenizerConfig struct {
	path     string
	template string            // chat_template ("default" of a list of named ones); "" when none
	tokens   map[string]string // bos_token, eos_token as strings
}

// qwenSystems are the system messages that Qwen's ChatML templates write
// when the conversation has none (Qwen2.5's, then Qwen2's); Qwen3's writes
// none.
var qwenSystems = []string{
	"You are Qwen, created by Alibaba Cloud. You are a helpful assistant.",
	"You are a helpful assistant.",
}

// chatMLSystem returns the default system message of a ChatML template: the
// first of qwenSystems its text writes, or "" (none). Only that is read of
// the template: its other parts are ChatMLText's.
func (c tokenizerConfig) chatMLSystem() string {
	for _, s := range qwenSystems {
		if strings.Contains(c.template, s) {
			return s
		}
	}
	return ""
}

// readTokenizerConfig reads dir's tokenizer_config.json; a directory
// without one gives a config without a template.
func readTokenizerConfig(dir string) (tokenizerConfig, error) {
	path := filepath.Join(dir, "tokenizer_config.json")
	cfg := tokenizerConfig{path: path, tokens: map[string]string{}}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	data, err := infile.Read(path, maxTokenizerConfigBytes)
	if err != nil {
		return cfg, err
	}
	var raw struct {
		ChatTemplate json.RawMessage `json:"chat_template"`
		BOS          json.RawMessage `json:"bos_token"`
		EOS          json.RawMessage `json:"eos_token"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		if line, col, ok := jsontext.ErrorPosition(data, err); ok {
			return cfg, fmt.Errorf("%s:%d:%d: %w", path, line, col, err)
		}
		return cfg, fmt.Errorf("%s: %w", path, err)
	}
	if cfg.template, err = chatTemplate(raw.ChatTemplate); err != nil {
		return cfg, fmt.Errorf("%s: chat_template: %w", path, err)
	}
	cfg.tokens["bos_token"] = tokenText(raw.BOS)
	cfg.tokens["eos_token"] = tokenText(raw.EOS)
	return cfg, nil
}

// chatTemplate reads chat_template: a string, or a list of named templates
// of which the one named "default" is the chat template.
func chatTemplate(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var named []struct{ Name, Template string }
	if err := json.Unmarshal(raw, &named); err != nil {
		return "", errors.New("neither a string nor a list of {name, template}")
	}
	for _, t := range named {
		if t.Name == "default" {
			return t.Template, nil
		}
	}
	return "", nil
}

// tokenText is a special token's text: a string, or an AddedToken object's
// content; "" when neither.
func tokenText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var t struct{ Content string }
	_ = json.Unmarshal(raw, &t) // neither: no text, not checked
	return t.Content
}

// maxTokenizerConfigBytes bounds tokenizer_config.json (Llama 3's has 50 KB,
// most of it added tokens).
const maxTokenizerConfigBytes = 16 << 20
