// Command random-model writes a model directory with random weights (llama.RandomWeights) in the shape of
// a known model, for benchmarks and conversion checks that need a real model's size but not its training:
//
//	random-model --shape llama3.2-1b --tokenizer .cache/llama3/tokenizer.json --out /tmp/llama1b
//
// The directory holds config.json, model.safetensors (f32 or bf16) and a copy of the tokenizer.json given,
// so that gasp loads it with --model and gguf-export converts it. The shapes (--shape) are those of the
// config.json of Llama-3.2-1B, Qwen2.5-1.5B, and two tiny models with their vocabularies and rope settings
// for checks. The weights are made one tensor at a time and converted as they are written, so the peak
// memory is about the f32 weights once.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gasplab/gasp/pkg/hf"
	"github.com/gasplab/gasp/pkg/llama"
)

// shapes are the configurations --shape names.
var shapes = map[string]llama.Config{
	// meta-llama/Llama-3.2-1B's config.json.
	"llama3.2-1b": {
		HiddenSize: 2048, NumHiddenLayers: 16, NumAttentionHeads: 32, NumKeyValueHeads: 8, HeadDim: 64,
		IntermediateSize: 8192, RMSNormEps: 1e-5, RopeTheta: 500000, RopeScaling: llama3Scaling(32),
		TieWordEmbeddings: true, VocabSize: 128256, MaxPositionEmbeddings: 131072,
		BOSTokenID: 128000, EOSTokenIDs: []int{128001},
	},
	// Qwen/Qwen2.5-1.5B's config.json.
	"qwen2.5-1.5b": {
		ModelType: llama.FamilyQwen2, HiddenSize: 1536, NumHiddenLayers: 28, NumAttentionHeads: 12,
		NumKeyValueHeads: 2, HeadDim: 128, IntermediateSize: 8960, RMSNormEps: 1e-6, RopeTheta: 1e6,
		TieWordEmbeddings: true, VocabSize: 151936, MaxPositionEmbeddings: 131072,
		BOSTokenID: 151643, EOSTokenIDs: []int{151643},
	},
	// Tiny models with the full vocabularies and rope settings, for conversion checks.
	"tiny-llama3": {
		HiddenSize: 64, NumHiddenLayers: 2, NumAttentionHeads: 4, NumKeyValueHeads: 2, HeadDim: 16,
		IntermediateSize: 128, RMSNormEps: 1e-5, RopeTheta: 500000, RopeScaling: llama3Scaling(32),
		TieWordEmbeddings: true, VocabSize: 128256, MaxPositionEmbeddings: 131072,
		BOSTokenID: 128000, EOSTokenIDs: []int{128001},
	},
	"tiny-qwen2.5": {
		ModelType: llama.FamilyQwen2, HiddenSize: 64, NumHiddenLayers: 2, NumAttentionHeads: 4,
		NumKeyValueHeads: 2, HeadDim: 16, IntermediateSize: 128, RMSNormEps: 1e-6, RopeTheta: 1e6,
		TieWordEmbeddings: true, VocabSize: 151936, MaxPositionEmbeddings: 32768,
		BOSTokenID: 151643, EOSTokenIDs: []int{151643},
	},
}

func llama3Scaling(factor float64) *llama.RopeScaling {
	return &llama.RopeScaling{RopeType: "llama3", Factor: factor, LowFreqFactor: 1, HighFreqFactor: 4,
		OriginalMaxPositionEmbeddings: 8192}
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "random-model:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("random-model", flag.ContinueOnError)
	shape := fs.String("shape", "", "model shape: "+strings.Join(shapeNames(), ", "))
	tokenizer := fs.String("tokenizer", "", "tokenizer.json to copy into the directory")
	dtype := fs.String("dtype", "f32", "safetensors dtype: f32 or bf16")
	seed := fs.Uint64("seed", 1, "random seed")
	out := fs.String("out", "", "model directory to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, ok := shapes[*shape]
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case !ok:
		return fmt.Errorf("--shape %q: want one of %s", *shape, strings.Join(shapeNames(), ", "))
	case *out == "" || *tokenizer == "":
		return fmt.Errorf("--out and --tokenizer are required")
	case *dtype != "f32" && *dtype != "bf16":
		return fmt.Errorf("--dtype %q: want f32 or bf16", *dtype)
	}
	cfg.TorchDType = map[string]string{"f32": "float32", "bf16": "bfloat16"}[*dtype]
	tok, err := os.ReadFile(*tokenizer)
	if err != nil {
		return err
	}
	if err := write(*out, cfg, *seed, *dtype); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(*out, "tokenizer.json"), tok, 0o644)
}

func shapeNames() []string {
	var names []string
	for n := range shapes {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// write writes config.json and model.safetensors, converting each weight to bytes and dropping its float32
// values as it goes (llama.WriteCheckpoint would hold both whole).
func write(dir string, cfg llama.Config, seed uint64, dtype string) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	w := llama.RandomWeights(cfg, seed)
	conv := hf.Float32Tensor
	if dtype == "bf16" {
		conv = hf.BFloat16Tensor
	}
	var ts []hf.Tensor
	for _, name := range cfg.WeightNames() {
		shape, _ := cfg.WeightShape(name)
		ts = append(ts, conv(name, shape, w[name]))
		delete(w, name)
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, llama.ConfigFile), append(data, '\n'), 0o644); err != nil {
		return err
	}
	return hf.WriteSafetensors(filepath.Join(dir, hf.SafetensorsFile), ts, map[string]string{"format": "pt"})
}
