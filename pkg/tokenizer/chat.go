package tokenizer

import (
	"strings"
	"time"
	"unicode"
)

// DefaultChatDate is the date that the Llama 3.1 Instruct chat template
// writes when it is given none (its date_string default).
const DefaultChatDate = "26 Jul 2024"

// ChatOptions are options of ChatPrompt and ChatText.
type ChatOptions struct {
	// Date is the "Today Date" of the system header, as the template's
	// date_string, for example "26 Jul 2024" (see ChatDate). Empty means
	// DefaultChatDate.
	Date string
	// System is the content of a system message, trimmed as the template
	// trims it; empty means none (the template then writes the header with
	// an empty message).
	System string
	// ContentAsText encodes the special-token text in the user and system
	// messages, such as "<|eot_id|>", as ordinary text. By default it
	// becomes the special token, as with transformers' apply_chat_template
	// (which renders the template and then encodes the whole text).
	ContentAsText bool
}

// ChatDate formats t as the template's date_string: "26 Jul 2024".
func ChatDate(t time.Time) string { return t.Format("02 Jan 2006") }

// ChatText returns the text of the Llama 3.1 Instruct chat template for
// one user message with the generation prompt. The template is the
// chat_template of meta-llama/Llama-3.1-8B-Instruct's tokenizer_config.json
// (the same for the 70B and 405B Instruct models), rendered as transformers'
// apply_chat_template does with messages [{"role": "user", "content":
// user}] (and a system message before it when opts.System is set),
// add_generation_prompt=True, no tools and date_string opts.Date. The text
// is:
//
//	<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n
//	Cutting Knowledge Date: December 2023\n
//	Today Date: 26 Jul 2024\n\n
//	{system}<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n
//	{user}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n
//
// without the line breaks shown here after "\n" (each "\n" is one line
// break), where {user} and {system} are the messages with leading and
// trailing white space removed (the template's trim filter, Python's
// str.strip) and {system} is empty when there is no system message.
func ChatText(user string, opts ChatOptions) string {
	date := opts.Date
	if date == "" {
		date = DefaultChatDate
	}
	var b strings.Builder
	b.WriteString(chatHead(date))
	b.WriteString(pyStrip(opts.System))
	b.WriteString(chatMid)
	b.WriteString(pyStrip(user))
	b.WriteString(chatTail)
	return b.String()
}

const (
	chatMid  = "<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n"
	chatTail = "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
)

func chatHead(date string) string {
	return "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n" +
		"Cutting Knowledge Date: December 2023\n" +
		"Today Date: " + date + "\n\n"
}

// ChatPrompt returns the token ids of ChatText(user, opts): the prompt
// after which a Llama 3.1 Instruct model writes its answer. The ids are
// those of transformers' apply_chat_template(..., tokenize=True), which
// encodes the text without adding special tokens (the template writes BOS
// itself).
func (t *Tokenizer) ChatPrompt(user string, opts ChatOptions) []int {
	if !opts.ContentAsText {
		return t.EncodeWith(ChatText(user, opts), EncodeOptions{})
	}
	// The messages are encoded apart from the template's text. That gives
	// the same ids as encoding the whole text: each message follows "\n\n",
	// which the pre-tokenizer always splits off before a character that is
	// not white space (and the trimmed message starts with none), and is
	// followed by <|eot_id|>.
	date := opts.Date
	if date == "" {
		date = DefaultChatDate
	}
	asText := EncodeOptions{SpecialAsText: true}
	ids := t.EncodeWith(chatHead(date), EncodeOptions{})
	ids = t.AppendEncode(ids, pyStrip(opts.System), asText)
	ids = t.AppendEncode(ids, chatMid, EncodeOptions{})
	ids = t.AppendEncode(ids, pyStrip(user), asText)
	return t.AppendEncode(ids, chatTail, EncodeOptions{})
}

// pyStrip is Python's str.strip(): it removes leading and trailing
// characters for which str.isspace() is true, the Unicode White_Space
// characters and U+001C..U+001F.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || 0x1c <= r && r <= 0x1f
	})
}
