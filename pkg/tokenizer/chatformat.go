package tokenizer

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Message is one message of a conversation. Role is "system", "user" or
// "assistant".
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// A ChatFormat is a chat template of tokenizer_config.json that gasp
// renders in Go, exactly as transformers' apply_chat_template renders the
// template's Jinja text with add_generation_prompt=True and no tools.
// LookupChatFormat finds the format of a template's text; a text it does
// not know has none, so that a template is rendered exactly or not at all.
type ChatFormat struct {
	// Name names the template, for example "mistral-v0.2".
	Name string
	// BOS and EOS are the bos_token and eos_token the template is rendered
	// with: the model's tokenizer must have them as special tokens. EOS is
	// empty when the template does not write it.
	BOS, EOS string
	// Tokens are the other special tokens the template writes.
	Tokens []string
	// sha256s are the SHA-256 sums of the known texts of the template (with
	// one trailing line break removed, as jinja2 removes it).
	sha256s []string
	render  func(msgs []Message, bos, eos string) (string, error)
}

// Text renders a conversation. It fails where the template raises an
// exception (roles that do not alternate, a system message the template
// does not take) and on an empty conversation or an unknown role.
func (f *ChatFormat) Text(msgs []Message) (string, error) {
	if len(msgs) == 0 {
		return "", fmt.Errorf("chat template %s: no messages", f.Name)
	}
	for i, m := range msgs {
		switch m.Role {
		case "system", "user", "assistant":
		default:
			return "", fmt.Errorf("chat template %s: message %d: role %q (want system, user or assistant)", f.Name, i+1, m.Role)
		}
	}
	s, err := f.render(msgs, f.BOS, f.EOS)
	if err != nil {
		return "", fmt.Errorf("chat template %s: %w", f.Name, err)
	}
	return s, nil
}

// ChatFormatPrompt returns the token ids of f.Text(msgs), encoded as
// apply_chat_template(..., tokenize=True) does: the special-token text
// becomes the special tokens, and nothing is added (the template writes
// BOS). It fails when the tokenizer lacks one of the format's special
// tokens.
func (t *Tokenizer) ChatFormatPrompt(f *ChatFormat, msgs []Message) ([]int, error) {
	for _, s := range append([]string{f.BOS, f.EOS}, f.Tokens...) {
		if s == "" {
			continue
		}
		if id, ok := t.addedIDs[s]; !ok || !t.IsSpecial(id) {
			return nil, fmt.Errorf("chat template %s: the tokenizer has no special token %s", f.Name, s)
		}
	}
	text, err := f.Text(msgs)
	if err != nil {
		return nil, err
	}
	return t.EncodeWith(text, EncodeOptions{}), nil
}

// TemplateSHA256 returns the hex SHA-256 sum by which LookupChatFormat
// knows a template's text: that of the text less one trailing line break
// (jinja2 drops it: keep_trailing_newline is false).
func TemplateSHA256(template string) string {
	sum := sha256.Sum256([]byte(strings.TrimSuffix(template, "\n")))
	return hex.EncodeToString(sum[:])
}

// LookupChatFormat returns the format whose template text is template
// (compared by TemplateSHA256), or false.
func LookupChatFormat(template string) (*ChatFormat, bool) {
	sum := TemplateSHA256(template)
	for _, f := range ChatFormats() {
		for _, s := range f.sha256s {
			if s == sum {
				return f, true
			}
		}
	}
	return nil, false
}

// ChatFormats returns the formats LookupChatFormat knows.
func ChatFormats() []*ChatFormat {
	return []*ChatFormat{&mistralV1, &mistralV2, &gemma3}
}

// errAlternate is the templates' exception when user and assistant
// messages do not alternate.
var errAlternate = errors.New("conversation roles must alternate user/assistant/user/assistant/...")

// mistralV1 is the first chat template of Mistral-7B-Instruct-v0.1:
// messages user, assistant, user, …, no system message, none trimmed:
//
//	<s>[INST] {user} [/INST]{assistant}</s> [INST] {user} [/INST]
var mistralV1 = ChatFormat{
	Name: "mistral-v0.1",
	BOS:  "<s>", EOS: "</s>",
	sha256s: []string{"7e995b379ec01747807246483647cd99030abf331653f1119e16d7ac041a3495"},
	render: func(msgs []Message, bos, eos string) (string, error) {
		var b strings.Builder
		b.WriteString(bos)
		for i, m := range msgs {
			if (m.Role == "user") != (i%2 == 0) {
				return "", fmt.Errorf("message %d: %w", i+1, errAlternate)
			}
			switch m.Role {
			case "user":
				b.WriteString("[INST] " + m.Content + " [/INST]")
			case "assistant":
				b.WriteString(m.Content + eos + " ")
			default:
				return "", fmt.Errorf("message %d: only user and assistant roles are supported", i+1)
			}
		}
		return b.String(), nil
	},
}

// mistralV2 is the chat template of Mistral-7B-Instruct-v0.2: an optional
// system message, then user,
// assistant, user, …; the system message is written at the top of the
// first user message; none is trimmed:
//
//	<s> [INST] {system}\n\n{user} [/INST] {assistant}</s> [INST] {user} [/INST]
var mistralV2 = ChatFormat{
	Name: "mistral-v0.2",
	BOS:  "<s>", EOS: "</s>",
	sha256s: []string{"bbc58aad99454df60138be9530c9601a0adfe3d8932cda975e1f10b2410ddc51"},
	render: func(msgs []Message, bos, eos string) (string, error) {
		system, hasSystem := "", false
		if msgs[0].Role == "system" {
			system, hasSystem, msgs = msgs[0].Content, true, msgs[1:]
		}
		var b strings.Builder
		b.WriteString(bos)
		for i, m := range msgs {
			if (m.Role == "user") != (i%2 == 0) {
				return "", fmt.Errorf("after the optional system message, %w", errAlternate)
			}
			switch {
			case m.Role == "user" && i == 0 && hasSystem:
				b.WriteString(" [INST] " + system + "\n\n" + m.Content + " [/INST]")
			case m.Role == "user":
				b.WriteString(" [INST] " + m.Content + " [/INST]")
			case m.Role == "assistant":
				b.WriteString(" " + m.Content + eos)
			default:
				return "", errors.New("only user and assistant roles are supported, with the exception of an initial optional system message")
			}
		}
		return b.String(), nil
	},
}

// gemma3 is the chat template of Gemma 3's instruction-tuned models: an
// optional system message, written at the top of the first user turn, then
// user, assistant, user, … as turns of "user" and "model", each message
// trimmed (Python's str.strip), the system message not:
//
//	<bos><start_of_turn>user\n{system}\n\n{user}<end_of_turn>\n
//	<start_of_turn>model\n{assistant}<end_of_turn>\n … <start_of_turn>model\n
var gemma3 = ChatFormat{
	Name: "gemma-3",
	BOS:  "<bos>", Tokens: []string{"<start_of_turn>", "<end_of_turn>"},
	sha256s: []string{"8d9e3a3c114fb2053ec500184677af4f7e5f8ec2582443cd535834e68b3ade29"},
	render: func(msgs []Message, bos, _ string) (string, error) {
		prefix := ""
		if msgs[0].Role == "system" {
			prefix, msgs = msgs[0].Content+"\n\n", msgs[1:]
		}
		var b strings.Builder
		b.WriteString(bos)
		for i, m := range msgs {
			if (m.Role == "user") != (i%2 == 0) {
				return "", fmt.Errorf("message %d: %w", i+1, errAlternate)
			}
			role := m.Role
			if role == "assistant" {
				role = "model"
			}
			b.WriteString("<start_of_turn>" + role + "\n")
			if i == 0 {
				b.WriteString(prefix)
			}
			b.WriteString(pyStrip(m.Content) + "<end_of_turn>\n")
		}
		b.WriteString("<start_of_turn>model\n")
		return b.String(), nil
	},
}
