package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/experiment"
	"github.com/gasplab/gasp/pkg/grammar"
)

// openTask opens the task a command's flags describe: c.Grammar is the
// --grammar file, c.Prompt the --prompt value (a file, or the text), and
// c.Model a model directory ("" for the embedded model; commands that
// sample do not resolve hub ids). Grammar warnings go to warn; a
// grammar's errors come back as a grammar.ErrorList.
func openTask(c experiment.TaskConfig, warn io.Writer) (*experiment.Task, error) {
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
	return experiment.OpenTask(context.Background(), c)
}
