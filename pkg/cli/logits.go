package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gasplab/gasp/pkg/hf"
	"github.com/gasplab/gasp/pkg/llama"
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
spaces or commas. The backend is the one $GOMLX_BACKEND names (default: gasp's
cpu engine "cpu" where its AVX2/AVX-512 kernels run, else GoMLX's pure-Go backend
"go"); --dtype chooses the weights' dtype (auto: the checkpoint's on XLA, f32
on the CPU); activations are float32.`

// logitsCmd is "gasp logits" configured by its flags.
type logitsCmd struct {
	model, dtype string
	dt           hf.DType // --dtype parsed
	ids          []int
}

func runLogits(args []string, stdout, stderr io.Writer) int {
	return runConfigured("gasp logits", parseLogits, args, stdout, stderr)
}

// parseLogits parses and checks the flags; done is true when the command
// ends with code.
func parseLogits(args []string, stdout, stderr io.Writer) (*logitsCmd, int, bool) {
	c := &logitsCmd{}
	cl := newCmdLine("gasp logits", "gasp logits --model DIR --ids \"ID ID ...\" [--dtype f32|bf16|auto]", logitsDoc, stdout, stderr)
	cl.StringVar(&c.model, "model", "", "model directory or hub id (default: data/models/tiny of the repository)")
	idsFlag := cl.String("ids", "", "token ids, separated by spaces or commas")
	cl.StringVar(&c.dtype, "dtype", "auto", "weights and cache dtype: f32, bf16 or auto")
	if done, code := cl.parseNoArgs(args); done {
		return c, code, true
	}
	var err error
	if c.ids, err = parseIDs(*idsFlag); err != nil {
		return c, cl.usageError("--ids: %v", err), true
	}
	if len(c.ids) == 0 {
		return c, cl.usageError("--ids is required"), true
	}
	if c.dt, err = llama.ParseDType(c.dtype); err != nil {
		return c, cl.usageError("--dtype: %v", err), true
	}
	return c, 0, false
}

// run loads the model and prints the logits after the ids.
func (c *logitsCmd) run(stdout, _ io.Writer) error {
	if c.model == "" {
		dir, err := findDefaultModel()
		if err != nil {
			return err
		}
		c.model = dir
	}
	dir, err := hf.Resolve(context.Background(), c.model, hf.Options{})
	if err != nil {
		return err
	}
	if err := checkModelMemory(dir, 1, len(c.ids), fmt.Sprintf("%d ids", len(c.ids))); err != nil {
		return err
	}
	m, err := llama.Load(dir, llama.Options{DType: c.dt})
	if err != nil {
		return err
	}
	defer m.Close()
	last, err := lastLogits(m, c.ids)
	if err != nil {
		return err
	}
	out, err := json.Marshal(logitsReport{VocabSize: m.Config().VocabSize, Logits: last})
	if err == nil {
		_, err = stdout.Write(append(out, '\n'))
	}
	return err
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
