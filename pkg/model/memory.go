package model

import (
	"fmt"

	"github.com/gasplab/gasp/pkg/llama"
	"github.com/gasplab/gasp/pkg/membound"
)

// CheckMemory refuses the model in dir with a session of rows rows of seq
// positions when they do not fit in memory, before the weights are read,
// with a *membound.Error; what names the request in it ("--batch 100").
func CheckMemory(dir string, rows, seq int, what string) error {
	c, err := llama.LoadConfig(dir)
	if err != nil {
		return err
	}
	need := weightBytes(c) + sessionBytes(c, rows, seq)
	if what == "" {
		what = "the model"
	}
	return membound.Check(fmt.Sprintf("%s (model %s: %s of weights, KV caches of %d rows × %d positions)", what, dir,
		membound.Bytes(weightBytes(c)), rows, seq), need)
}

// weightBytes estimates the float32 weights of a Llama model.
func weightBytes(c llama.Config) float64 {
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
