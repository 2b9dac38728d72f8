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

	"github.com/gasplab/gasp/pkg/model"
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

// checkModelMemory refuses a model and session that do not fit in memory,
// before the weights are read (model.CheckMemory).
func checkModelMemory(dir string, rows, seq int, what string) error {
	return model.CheckMemory(dir, rows, seq, what)
}
