// Command gguf-export converts a gasp model directory (a Llama or Qwen2 checkpoint: config.json,
// model.safetensors, tokenizer.json) into a GGUF file that llama.cpp loads (package gguf's Export says what
// it writes and why):
//
//	gguf-export --model DIR --type bf16 --out model-bf16.gguf
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gasplab/gasp/pkg/gguf"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gguf-export:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("gguf-export", flag.ContinueOnError)
	model := fs.String("model", "", "model directory")
	typ := fs.String("type", "f32", "type of the matrices: f32 or bf16")
	out := fs.String("out", "", "GGUF file to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	types := map[string]gguf.TensorType{"f32": gguf.F32, "bf16": gguf.BF16}
	t, ok := types[*typ]
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case *model == "" || *out == "":
		return fmt.Errorf("--model and --out are required")
	case !ok:
		return fmt.Errorf("--type %q: want f32 or bf16", *typ)
	}
	return gguf.Export(*model, *out, t)
}
