package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/hf"
	"github.com/gasplab/gasp/pkg/llama"
	"github.com/gasplab/gasp/pkg/tokenizer"
)

// qwenSpecials are the first special tokens of Qwen2/Qwen2.5/Qwen3's tokenizer.json, in their order.
var qwenSpecials = []string{"<|endoftext|>", "<|im_start|>", "<|im_end|>"}

// qwenTokenizer returns a tokenizer.json laid out as Qwen's: a byte-level BPE (here trained on a few
// sentences) with Qwen's NFC normalizer, its pre-tokenizer regex (QwenPattern: digits one by one), a
// ByteLevel post-processor that adds no BOS, and Qwen's first special tokens.
func qwenTokenizer(t *testing.T) []byte {
	t.Helper()
	texts := []string{
		samplePrompt, "Two names: (ab cd) and (xy).", "Short names in parentheses, like (jo) or (al bo).",
		"The 12 names were given in 2024.", "(ab) (cd ef) (gh) (ij kl)",
	}
	data, err := tokenizer.Train(texts, tokenizer.TrainOptions{VocabSize: 360, SpecialTokens: qwenSpecials})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["normalizer"] = map[string]any{"type": "NFC"}
	m["pre_tokenizer"] = map[string]any{"type": "Sequence", "pretokenizers": []any{
		map[string]any{"type": "Split", "pattern": map[string]any{"Regex": tokenizer.QwenPattern}, "behavior": "Isolated", "invert": false},
		map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
	}}
	m["post_processor"] = map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}
	m["decoder"] = map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writeQwenModel writes a random tiny checkpoint of a Qwen family (llama.FamilyQwen2: q/k/v biases, tied
// embeddings; llama.FamilyQwen3: q/k norms, head_dim ≠ hidden/heads) in bfloat16, with a Qwen-style
// tokenizer and a generation_config.json whose EOS list is Qwen2.5-Instruct's (<|im_end|>, <|endoftext|>).
// As Qwen's, the model's vocabulary is padded beyond the tokenizer's.
func writeQwenModel(t *testing.T, family string) (dir string, tok *tokenizer.Tokenizer) {
	t.Helper()
	dir = t.TempDir()
	tj := qwenTokenizer(t)
	tok, err := tokenizer.Parse(tj)
	if err != nil {
		t.Fatal(err)
	}
	endOfText, _ := tok.ID("<|endoftext|>")
	imEnd, _ := tok.ID("<|im_end|>")
	cfg := llama.Config{
		ModelType: family, HiddenSize: 32, NumHiddenLayers: 2, NumAttentionHeads: 4, NumKeyValueHeads: 2,
		HeadDim: 8, IntermediateSize: 64, RMSNormEps: 1e-6, RopeTheta: 1e6, TieWordEmbeddings: true,
		VocabSize: tok.VocabSize() + 13, MaxPositionEmbeddings: 32768, BOSTokenID: endOfText,
		EOSTokenIDs: []int{endOfText}, TorchDType: "bfloat16",
	}
	if family == llama.FamilyQwen3 {
		cfg.HeadDim, cfg.TieWordEmbeddings = 16, false
	}
	if err := llama.WriteCheckpoint(dir, cfg, llama.RandomWeights(cfg, 29), hf.BF16); err != nil {
		t.Fatal(err)
	}
	gen := fmt.Sprintf(`{"bos_token_id": %d, "eos_token_id": [%d, %d], "do_sample": true}`, endOfText, imEnd, endOfText)
	for name, data := range map[string][]byte{"tokenizer.json": tj, "generation_config.json": []byte(gen)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, tok
}

// TestSampleQwen is the end-to-end test of the Qwen families: "gasp sample --model DIR" on random tiny Qwen2
// and Qwen3 checkpoints with a Qwen-style tokenizer, under a grammar, with GCD and an MCMC method, on both
// engines. Every record must be a sentence of the grammar, its prompt the ChatML chat prompt (no BOS,
// as Qwen's tokenizer adds none), and both engines must draw the same samples (their logits
// agree to ~1e-6, so a draw differs only if it falls that close to a boundary).
func TestSampleQwen(t *testing.T) {
	g, _, err := grammar.CompileFile(sampleGrammar, grammar.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gm := earley.New(g)
	for _, family := range []string{llama.FamilyQwen2, llama.FamilyQwen3} {
		t.Run(family, func(t *testing.T) {
			dir, tok := writeQwenModel(t, family)
			// The chat template is ChatML's: Qwen2.5's writes its default
			// system message (read from tokenizer_config.json), Qwen3's none.
			system := ""
			if family == llama.FamilyQwen2 {
				system = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."
				tc := `{"chat_template": "{%- if messages[0]['role'] == 'system' %}...{%- else %}{{- '<|im_start|>system\\n` + system + `<|im_end|>\\n' }}{%- endif %}"}`
				if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(tc), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			prompt, err := tok.ChatMLPrompt(samplePrompt, tokenizer.ChatMLOptions{System: system})
			if err != nil {
				t.Fatal(err)
			}
			// gcd: a record a run; mcmc-priority --k 2: the chain's states k = 0…2.
			for _, method := range [][3]string{{"gcd", "0", "2"}, {"mcmc-priority", "2", "6"}} {
				var texts [2][]string
				for e, backend := range []string{llama.CPUBackend, "go"} {
					t.Setenv("GOMLX_BACKEND", backend)
					recs, lines := runSampleCmd(t, "--model", dir, "--method", method[0], "--k", method[1])
					if strconv.Itoa(len(recs)) != method[2] {
						t.Fatalf("%s %s: %d records, want %s", method[0], backend, len(recs), method[2])
					}
					for i, r := range recs {
						var ids []int
						for _, v := range r["prompt_ids"].([]any) {
							ids = append(ids, int(v.(float64)))
						}
						if !slices.Equal(ids, prompt) {
							t.Errorf("%s %s record %d: prompt_ids %v, want %v", method[0], backend, i, ids, prompt)
						}
						text := r["text"].(string)
						p := gm.NewParser()
						if r["valid"] != true || !p.FeedBytes([]byte(text)) || !p.Complete() {
							t.Errorf("%s %s record %d: text %q is not a sentence of the grammar: %s", method[0], backend, i, text, lines[i])
						}
						texts[e] = append(texts[e], text)
					}
					t.Logf("%s %s: %q", method[0], backend, texts[e])
				}
				if !slices.Equal(texts[0], texts[1]) {
					t.Errorf("%s: the cpu engine drew %q, GoMLX %q", method[0], texts[0], texts[1])
				}
			}
		})
	}
}
