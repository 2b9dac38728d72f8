package lm_test

import (
	"fmt"
	"math"

	"github.com/gasplab/gasp/pkg/lm"
)

// A Batch evaluates only what its rows lack: a truncated row keeps its
// computed prefix. The bigram model here stands in for a real one
// (model.Load gives an lm.Model of a model directory).
func Example() {
	start := []float32{0, 0, 0}
	next := [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	m := lm.Finite(lm.NewBigram(start, next))

	b, err := lm.NewBatch(m, []int{0}, 2) // prompt [0], two rows
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	b.Append(0, 1, 2)
	b.Append(1, 2)
	logits, err := b.Next([]int{0, 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(logits[0], logits[1], "evaluations:", b.Evals())
	b.Truncate(0, 1) // row 0 keeps [1]
	b.Append(0, 0)
	if _, err := b.Next([]int{0}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b.Tokens(0), "evaluations:", b.Evals())
	// Output:
	// [0 0 1] [0 0 1] evaluations: 4
	// [1 0] evaluations: 5
}

// Transform defines P: temperature, top-k, top-p, softmax.
func ExampleTransform() {
	t := lm.Transform{Temperature: 0.5, TopK: 2}
	lp := t.LogProbs([]float32{2, 1, 0}, nil)
	for _, x := range lp {
		fmt.Printf("%.3f ", math.Exp(x))
	}
	fmt.Println(t)
	// Output:
	// 0.881 0.119 0.000 T=0.5 top-k=2 top-p=off
}
