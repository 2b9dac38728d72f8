package gguf_test

import (
	"bytes"
	"fmt"
	"io"

	"github.com/gasplab/gasp/pkg/gguf"
)

// A GGUF file with one metadata entry and one 2 × 3 float32 tensor, written to memory and its header read
// back. gguf.Export does the same for a whole checkpoint directory.
func Example() {
	data := make([]byte, 6*4) // six float32 zeros
	var buf bytes.Buffer
	err := gguf.Write(&buf, []gguf.KV{{Key: "general.architecture", Value: "llama"}}, []gguf.Tensor{{
		Name: "w", Type: gguf.F32, Dims: []int64{3, 2}, // innermost first: 2 rows of 3
		Write: func(w io.Writer) error { _, err := w.Write(data); return err },
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := gguf.Read(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	arch, _ := f.Value("general.architecture")
	t := f.Tensors[0]
	fmt.Println(f.Version, arch, t.Name, t.Type, t.Dims, f.DataOffset%gguf.Alignment)
	// Output: 3 llama w F32 [3 2] 0
}
