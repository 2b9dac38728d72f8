package model_test

import (
	"context"
	"fmt"
	"log"

	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/model"
)

// Open a model, tokenize a prompt in its chat template, and load the
// weights with caches sized for it: an lm.Model for the samplers.
func Example() {
	m, err := model.Open(context.Background(), "../../data/models/tiny")
	if err != nil {
		log.Fatal(err)
	}
	prompt, err := m.Prompt("Write a name.", "")
	if err != nil {
		log.Fatal(err)
	}
	w, err := m.Load(len(prompt) + 32)
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	var _ lm.Model = lm.Finite(w) // NaN logits become errors
	fmt.Println(m.Vocab.Size(), "tokens; EOS", m.Vocab.EOS, "; chat", m.HasChat(), "; cache", w.WithSeq(len(prompt)+32).Seq)
	// Output: 2048 tokens; EOS [2044 2047] ; chat true ; cache 72
}
