package kernels_test

import (
	"fmt"

	"github.com/gasplab/gasp/pkg/llama/internal/kernels"
)

func ExampleMatMul() {
	x := []float32{1, 2, 3, 4, 5, 6} // [2, 3]
	w := []float32{1, 0, 0, 1, 1, 1} // [3, 2]
	y := make([]float32, 4)          // [2, 2]
	kernels.MatMul(y, x, w, 2, 3, 2, false)
	fmt.Println(y)
	// Output: [4 5 10 11]
}

func ExampleWeightedSum() {
	probs := []float32{0.25, 0.75}
	values := []float32{4, 8, 0, 4} // two positions' values of 2 dimensions
	out := make([]float32, 2)
	kernels.WeightedSum(out, probs, values, 2)
	fmt.Println(out)
	// Output: [1 5]
}
