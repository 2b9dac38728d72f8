package tokenizer

import (
	"errors"
	"strings"
)

// ChatMLOptions are options of ChatMLText.
type ChatMLOptions struct {
	// System is the content of a system message; empty means none. (Qwen2
	// and Qwen2.5 Instruct write "You are Qwen, created by Alibaba Cloud.
	// You are a helpful assistant." when there is none: pass it here.)
	System string
	// NoThinking closes the assistant's reasoning before it starts, as
	// Qwen3's template does with enable_thinking=False.
	NoThinking bool
}

// ChatMLText returns the text of the ChatML chat template of Qwen3 for one
// user message with the generation prompt, as transformers'
// apply_chat_template renders the chat_template of Qwen3's
// tokenizer_config.json with messages [{"role": "system", "content":
// system}, {"role": "user", "content": user}] (the system message only when
// opts.System is set), add_generation_prompt=True and no tools:
//
//	<|im_start|>system\n{system}<|im_end|>\n
//	<|im_start|>user\n{user}<|im_end|>\n
//	<|im_start|>assistant\n
//
// followed by "<think>\n\n</think>\n\n" with NoThinking, without the line
// breaks shown here after "\n". Unlike Llama 3's, the messages are not
// trimmed.
func ChatMLText(user string, opts ChatMLOptions) string {
	var b strings.Builder
	if opts.System != "" {
		b.WriteString("<|im_start|>system\n" + opts.System + "<|im_end|>\n")
	}
	b.WriteString("<|im_start|>user\n" + user + "<|im_end|>\n<|im_start|>assistant\n")
	if opts.NoThinking {
		b.WriteString("<think>\n\n</think>\n\n")
	}
	return b.String()
}

// ChatMLPrompt returns the token ids of ChatMLText(user, opts), encoded as
// apply_chat_template(..., tokenize=True) does: the special-token text
// becomes the special tokens, and no BOS is added. It fails when the
// tokenizer lacks <|im_start|> or <|im_end|>.
func (t *Tokenizer) ChatMLPrompt(user string, opts ChatMLOptions) ([]int, error) {
	for _, s := range []string{"<|im_start|>", "<|im_end|>"} {
		if id, ok := t.addedIDs[s]; !ok || !t.IsSpecial(id) {
			return nil, errors.New("tokenizer has no special token " + s + ": not a ChatML tokenizer")
		}
	}
	return t.EncodeWith(ChatMLText(user, opts), EncodeOptions{}), nil
}
