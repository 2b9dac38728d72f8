package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/experiment"
	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/membound"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/modroot"
)

// openTask opens the task a command's flags describe: c.Grammar is the
// --grammar file, c.Prompt the --prompt value (a file, or the text), and
// c.Model a model directory ("" for the embedded model; commands that
// sample do not resolve hub ids). Grammar warnings go to warn; a
// grammar's errors come back as a grammar.ErrorList. rows names the flag
// that sized c.Rows ("--batch 100") in the error of a batch too large for
// memory.
func openTask(c experiment.TaskConfig, warn io.Writer, rows string) (*experiment.Task, error) {
	if err := checkInput("--grammar", c.Grammar, maxGrammarBytes); err != nil {
		return nil, err
	}
	text, err := promptText(c.Prompt, io.Discard, "") // warned about by the caller
	if err != nil {
		return nil, err
	}
	c.Prompt = text
	if c.Model == "" {
		if c.Model, err = findDefaultModel(); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(filepath.Join(c.Model, "config.json")); err != nil {
		return nil, fmt.Errorf("model directory %s: %w", c.Model, err)
	}
	c.Warn = func(l grammar.ErrorList) { printWarnings(warn, l) }
	t, err := experiment.OpenTask(context.Background(), c)
	if mem := (*membound.Error)(nil); errors.As(err, &mem) {
		return nil, fmt.Errorf("%s: %w", rows, err)
	}
	return t, err
}

// rowsFlag names the flag that sizes a batch of a method (flag n, "--batch
// 100"), and the method's rows when they are more than one a run.
func rowsFlag(flag string, n int, name string, m method.Method) string {
	s := fmt.Sprintf("%s %d", flag, n)
	if rows := method.Rows(m, n); rows != n {
		s += fmt.Sprintf(" of --method %s (%d rows)", name, rows)
	}
	return s
}

// runConfigured runs a command whose flags parse into a configuration c:
// parse says done, with the exit code, for help and usage errors; an error
// of c.run exits 1, printed after the command's name, but an exitCode,
// whose command has said why, exits with it.
func runConfigured[C interface {
	run(stdout, stderr io.Writer) error
}](name string, parse func([]string, io.Writer, io.Writer) (C, int, bool),
	args []string, stdout, stderr io.Writer) int {
	c, code, done := parse(args, stdout, stderr)
	if done {
		return code
	}
	err := c.run(stdout, stderr)
	var exit exitCode
	switch {
	case errors.As(err, &exit):
		return int(exit)
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	return 0
}

// exitCode is the error of a command that has said why it stopped and ends
// with this exit status (130 after an interrupt, as a shell reports one).
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit status %d", int(c)) }

// defaultTask returns the directory of a task of the gasp module: rel
// relative to its root.
func defaultTask(rel string) (string, error) {
	return modroot.Path(rel)
}

// findDefaultModel returns the embedded model of the gasp module
// (package modroot: GASP_ROOT, else found from the working directory or
// where gasp was built).
func findDefaultModel() (string, error) {
	dir, err := modroot.Path(experiment.EmbeddedModel)
	if err != nil {
		return "", fmt.Errorf("default model: %w; or give --model DIR", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "config.json")); err != nil {
		return "", fmt.Errorf("default model: %w; give --model DIR", err)
	}
	return dir, nil
}
