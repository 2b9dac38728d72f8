//go:build xla

package llama

// Built with -tags xla, the XLA backend (PJRT plugins: "xla:cpu", "xla:cuda", ...) is linked in beside the
// pure-Go one; select it with Options.Backend or $GOMLX_BACKEND. environment.md tells how to install the
// CUDA PJRT plugin and run Llama-3.1-8B-Instruct on a GPU.
import _ "github.com/gomlx/go-xla/compute/xla"
