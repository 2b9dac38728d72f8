package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"

	"github.com/gasplab/gasp/pkg/llama"
	"github.com/gasplab/gasp/pkg/membound"
)

// Size limits of the files commands read whole: larger files are refused
// before they are read (a grammar or prompt of /dev/zero would never end).
const (
	maxGrammarBytes = 16 << 20
	maxPromptBytes  = 4 << 20
	maxIDsBytes     = 256 << 20
	// Llama 3's tokenizer.json has 9 MB; an experiment config a few KB.
	maxTokenizerBytes = 256 << 20
	maxConfigBytes    = 16 << 20
)

// maxNewTokens bounds --max-new-tokens: a completion longer than any
// model's context would only overflow the cache length.
const maxNewTokens = 1 << 20

// checkInput fails unless path, the value of flag, is a regular file of at
// most limit bytes.
func checkInput(flag, path string, limit int64) error {
	if err := inputProblem(path, limit); err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return nil
}

// inputProblem says why path is not a regular file of at most limit bytes
// (nil if it is).
func inputProblem(path string, limit int64) error {
	fi, err := os.Stat(path)
	if err != nil {
		return unwrapPath(err)
	}
	switch {
	case fi.IsDir():
		return errors.New("is a directory, not a file")
	case !fi.Mode().IsRegular():
		return errors.New("is not a regular file")
	case fi.Size() > limit:
		return fmt.Errorf("has %d bytes; at most %d are read", fi.Size(), limit)
	}
	return nil
}

// unwrapPath drops the *fs.PathError wrapper, whose path the message
// already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// readInput reads the file checkInput accepts.
func readInput(flag, path string, limit int64) ([]byte, error) {
	if err := checkInput(flag, path, limit); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("%s %s: more than %d bytes", flag, path, limit)
	}
	return b, err
}

// promptText resolves a --prompt value: the contents of the file it names
// when that exists (a directory or device is an error), else the text
// itself, with a warning to warn when the text looks like a path (one
// line, no space, a slash or a file extension): a mistyped file name
// should not silently become the prompt.
func promptText(arg string, warn io.Writer, cmd string) (string, error) {
	if _, err := os.Stat(arg); err == nil {
		b, err := readInput("--prompt", arg, maxPromptBytes)
		return string(b), err
	}
	if len(arg) > maxPromptBytes {
		return "", fmt.Errorf("--prompt text has %d bytes; at most %d", len(arg), maxPromptBytes)
	}
	if looksLikePath(arg) {
		fmt.Fprintf(warn, "%s: warning: --prompt %q is not a file; using it as the prompt text\n", cmd, arg)
	}
	return arg, nil
}

func looksLikePath(s string) bool {
	if strings.ContainsAny(s, " \t\n") {
		return false
	}
	if strings.Contains(s, "/") {
		return true
	}
	i := strings.LastIndexByte(s, '.')
	return i > 0 && i < len(s)-1 && len(s)-i <= 5
}

// digest is a short content hash for settings strings.
func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// checkFinite fails when a float flag is NaN or infinite.
func checkFinite(flag string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%s must be a finite number, got %v", flag, v)
	}
	return nil
}

// modelBytes estimates the float32 weights of a Llama model.
func modelBytes(c llama.Config) float64 {
	h, l, v := float64(c.HiddenSize), float64(c.NumHiddenLayers), float64(c.VocabSize)
	kv := float64(c.NumKeyValueHeads * c.HeadDim)
	q := float64(c.NumAttentionHeads * c.HeadDim)
	perLayer := h*q + 2*h*kv + q*h + 3*h*float64(c.IntermediateSize) + 2*h
	embed := v * h
	if !c.TieWordEmbeddings {
		embed *= 2
	}
	return 4 * (embed + l*perLayer + h)
}

// sessionBytes estimates a sampling session of rows rows with seq cache
// positions: per row, its KV caches twice (the caches and the step's
// copies) and 48 vocabulary-sized float32 vectors (logits, log
// probabilities, masks and their garbage between collections). Measured
// with "gasp sample" on the tiny model (vocabulary 2048, 25 positions):
// about 390 KiB per row at 1000 to 5000 rows (peak RSS); this gives 488.
func sessionBytes(c llama.Config, rows, seq int) float64 {
	kv := 2 * float64(c.NumHiddenLayers) * float64(c.NumKeyValueHeads*c.HeadDim) * float64(seq+1)
	return 4 * float64(rows) * (2*kv + 48*float64(c.VocabSize))
}

// checkModelMemory refuses a model and session that do not fit in memory,
// before the weights are read.
func checkModelMemory(dir string, rows, seq int, what string) error {
	c, err := llama.LoadConfig(dir)
	if err != nil {
		return err
	}
	need := modelBytes(c) + sessionBytes(c, rows, seq)
	if what == "" {
		what = "the model"
	}
	return membound.Check(fmt.Sprintf("%s (model %s: %s of weights, KV caches of %d rows × %d positions)", what, dir,
		membound.Bytes(modelBytes(c)), rows, seq), need)
}
