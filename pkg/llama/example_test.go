package llama_test

import (
	"fmt"

	"github.com/gasplab/gasp/pkg/llama"
)

// Load a checkpoint, prefill a prompt once for two rows, and let the rows
// go on with different tokens. The cached decoder gives the logits a
// whole-sequence forward pass gives.
func Example() {
	m, err := llama.Load("../../data/models/tiny", llama.Options{Backend: llama.CPUBackend, MaxSeq: 64})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	s, err := m.NewSession(2)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	prompt := []int{1, 2, 3}
	if _, err := s.Prefill(prompt); err != nil {
		fmt.Println(err)
		return
	}
	next, err := s.Step([]int{4, 5}, []int{0, 1}) // row 0 takes 4, row 1 takes 5
	if err != nil {
		fmt.Println(err)
		return
	}
	whole, err := m.Forward([]int{1, 2, 3, 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(next), s.Len(0), s.Len(1), argmax(next[1]) == argmax(whole[3]))
	// Output:
	// 2 4 4 true
}

func argmax(xs []float32) int {
	best := 0
	for i, x := range xs {
		if x > xs[best] {
			best = i
		}
	}
	return best
}
