// Command qwen-demo writes the model that scripts/qwen-demo.sh samples from: a
// random tiny Qwen3 checkpoint (llama.RandomWeights: 2 layers, hidden size 64,
// q/k norms, head_dim 32 ≠ 64/4 as Qwen3's) around a real Qwen3 tokenizer
// directory (tokenizer.json and tokenizer_config.json, copied), with Qwen3's
// vocabulary size, BOS and EOS ids (<|endoftext|>; generation stops on
// <|im_end|> and <|endoftext|>, as Qwen3's generation_config.json says):
//
//	go run ./scripts/qwen-demo --tokenizer DIR --out MODEL_DIR [--seed S]
//
// The weights are random, so the samples show the grammar and the tokenizer
// at work, not a trained model's answers.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/hf"
	"github.com/gasplab/gasp/pkg/llama"
	"github.com/gasplab/gasp/pkg/tokenizer"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "qwen-demo:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("qwen-demo", flag.ContinueOnError)
	tokDir := fs.String("tokenizer", "", "directory with Qwen3's tokenizer.json and tokenizer_config.json")
	out := fs.String("out", "", "model directory to write")
	seed := fs.Uint64("seed", 1, "seed of the random weights")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *tokDir == "" || *out == "" || fs.NArg() > 0 {
		return errors.New("usage: qwen-demo --tokenizer DIR --out MODEL_DIR [--seed S]")
	}
	tok, err := tokenizer.Load(filepath.Join(*tokDir, "tokenizer.json"))
	if err != nil {
		return err
	}
	ids := map[string]int{}
	for _, s := range []string{"<|endoftext|>", "<|im_end|>"} {
		id, ok := tok.ID(s)
		if !ok {
			return fmt.Errorf("%s: no token %s: not a Qwen tokenizer", *tokDir, s)
		}
		ids[s] = id
	}
	cfg := llama.Config{
		ModelType: llama.FamilyQwen3, HiddenSize: 64, NumHiddenLayers: 2, NumAttentionHeads: 4,
		NumKeyValueHeads: 2, HeadDim: 32, IntermediateSize: 128, RMSNormEps: 1e-6, RopeTheta: 1e6,
		VocabSize: max(151936, tok.VocabSize()), MaxPositionEmbeddings: 40960,
		BOSTokenID: ids["<|endoftext|>"], EOSTokenIDs: []int{ids["<|im_end|>"]}, TorchDType: "bfloat16",
	}
	if err := llama.WriteCheckpoint(*out, cfg, llama.RandomWeights(cfg, *seed), hf.BF16); err != nil {
		return err
	}
	gen := fmt.Sprintf("{\"bos_token_id\": %d, \"eos_token_id\": [%d, %d]}\n", ids["<|endoftext|>"], ids["<|im_end|>"], ids["<|endoftext|>"])
	if err := os.WriteFile(filepath.Join(*out, "generation_config.json"), []byte(gen), 0o644); err != nil {
		return err
	}
	for _, name := range []string{"tokenizer.json", "tokenizer_config.json"} {
		data, err := os.ReadFile(filepath.Join(*tokDir, name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(*out, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
