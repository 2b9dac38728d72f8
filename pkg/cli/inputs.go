package cli

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

	"github.com/gasplab/gasp/pkg/experiment"
	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/infile"
	"github.com/gasplab/gasp/pkg/model"
	"github.com/gasplab/gasp/pkg/tokenizer"
)

// Size limits of the files commands read whole: larger files are refused
// before they are read (a grammar or prompt of /dev/zero would never end).
// Those of files a package reads are the package's.
const (
	maxGrammarBytes   = grammar.MaxSourceBytes
	maxPromptBytes    = experiment.MaxPromptBytes
	maxIDsBytes       = 256 << 20
	maxTokenizerBytes = tokenizer.MaxFileBytes
	maxConfigBytes    = experiment.MaxConfigBytes
)

// maxNewTokens bounds --max-new-tokens: a completion longer than any
// model's context would only overflow the cache length.
const maxNewTokens = 1 << 20

// checkInput fails unless path, the value of flag, is a regular file of at
// most limit bytes: "--grammar /dev/zero: is not a regular file".
func checkInput(flag, path string, limit int64) error {
	return flagError(flag, infile.Check(path, limit))
}

// readInput reads the file checkInput accepts.
func readInput(flag, path string, limit int64) ([]byte, error) {
	b, err := infile.Read(path, limit)
	return b, flagError(flag, err)
}

// flagError puts the flag before an infile error, which names the path.
func flagError(flag string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s %w", flag, err)
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

// unwrapPath drops the *fs.PathError wrapper, whose path the message
// already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
