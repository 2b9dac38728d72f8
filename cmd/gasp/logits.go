package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gasplab/gasp/pkg/hf"
	"github.com/gasplab/gasp/pkg/llama"
	"github.com/gasplab/gasp/pkg/lm"
)

// logitsReport is what "gasp logits" prints.
type logitsReport struct {
	VocabSize int       `json:"vocab_size"`
	Logits    []float32 `json:"logits"`
}

const logitsDoc = `
Runs the Llama model in DIR (config.json and model.safetensors, or a sharded
checkpoint; DIR may also be a Hugging Face hub id, resolved through the hub
cache) on the token ids and prints the next-token logits after the last id
as JSON: {"vocab_size": V, "logits": [V numbers]}. The ids are separated by
spaces or commas. The GoMLX backend is the one $GOMLX_BACKEND names (default:
the pure-Go backend "go"); --dtype chooses the weights' dtype (auto: the
checkpoint's on XLA, f32 on the pure-Go backend); activations are float32.`

func runLogits(args []string, stdout, stderr io.Writer) int {
	fset := newFlagSet("gasp logits", "gasp logits --model DIR --ids \"ID ID ...\" [--dtype f32|bf16|auto]", logitsDoc)
	model := fset.String("model", "", "model directory or hub id (default: data/models/tiny of the repository)")
	idsFlag := fset.String("ids", "", "token ids, separated by spaces or commas")
	dtype := fset.String("dtype", "auto", "weights and cache dtype: f32, bf16 or auto")
	pos, done, code := parseFlags(fset, args, stdout, stderr)
	if done {
		return code
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "gasp logits: "+format+"\n", a...)
		fset.SetOutput(stderr)
		fset.Usage()
		return 2
	}
	if len(pos) > 0 {
		return usageErr("unexpected arguments %q", pos)
	}
	if *model == "" {
		dir, err := findDefaultModel()
		if err != nil {
			fmt.Fprintf(stderr, "gasp logits: %v\n", err)
			return 1
		}
		*model = dir
	}
	ids, err := parseIDs(*idsFlag)
	if err != nil {
		return usageErr("--ids: %v", err)
	}
	if len(ids) == 0 {
		return usageErr("--ids is required")
	}
	dir, err := hf.Resolve(context.Background(), *model, hf.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "gasp logits: %v\n", err)
		return 1
	}
	if _, err := llama.ResolveDType(*dtype, "", ""); err != nil {
		return usageErr("--dtype: %v", err)
	}
	if err := checkModelMemory(dir, 1, len(ids), fmt.Sprintf("%d ids", len(ids))); err != nil {
		fmt.Fprintf(stderr, "gasp logits: %v\n", err)
		return 1
	}
	m, err := llama.Load(dir, llama.Options{DType: *dtype})
	if err != nil {
		fmt.Fprintf(stderr, "gasp logits: %v\n", err)
		return 1
	}
	defer m.Close()
	logits, err := m.Forward(ids)
	if err != nil {
		fmt.Fprintf(stderr, "gasp logits: %v\n", err)
		return 1
	}
	if err := lm.CheckFinite(logits[len(logits)-1], "the ids"); err != nil {
		fmt.Fprintf(stderr, "gasp logits: %v\n", err)
		return 1
	}
	out, err := json.Marshal(logitsReport{VocabSize: m.Config().VocabSize, Logits: logits[len(logits)-1]})
	if err != nil {
		fmt.Fprintf(stderr, "gasp logits: %v\n", err)
		return 1
	}
	out = append(out, '\n')
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintf(stderr, "gasp logits: %v\n", err)
		return 1
	}
	return 0
}

// parseIDs parses non-negative integers separated by spaces or commas.
func parseIDs(s string) ([]int, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
	ids := make([]int, 0, len(fields))
	for _, f := range fields {
		id, err := strconv.Atoi(f)
		if err != nil || id < 0 {
			return nil, fmt.Errorf("%q is not a token id", f)
		}
		ids = append(ids, id)
	}
	return ids, nil
}
