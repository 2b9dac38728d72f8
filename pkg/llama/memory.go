package llama

import (
	"fmt"

	"github.com/gasplab/gasp/pkg/hf"
)

// Memory is the device memory a model and one session of decoding take, in bytes (see EstimateMemory).
type Memory struct {
	Weights     int64 // the weights as the device holds them (norms and biases in float32, a tied head's transposed copy)
	Caches      int64 // a session's K and V caches at their full length
	Temporaries int64 // what a decode step holds besides: new caches, logits, activations
}

// Peak is the most memory the model and the session hold at once: weights + caches + temporaries.
func (m Memory) Peak() int64 { return m.Weights + m.Caches + m.Temporaries }

// EstimateMemory returns the device memory of a model of configuration c with weights and caches of dtype
// dt (hf.F32 or hf.BF16, as ResolveDType gives; another is an error), and one session of batch rows of seq
// positions, with
//
//	Weights     = e·(matrix elements, a tied head twice) + 4·(norm and bias elements)
//	Caches      = 2·L·B·kvH·hd·(S+1)·e
//	Temporaries = Caches + 4·B·V + 4·B·(2·I + (heads + 2·kvH)·hd + 2·H + 2·heads·(S+1))
//
// for e = 2 (bfloat16) or 4 (float32) bytes an element, L layers, B rows, S positions. The temporaries count
// a second copy of the caches: a decode step donates the caches and returns updated ones, and with go-xla
// v0.4.0, which emits no input/output aliasing, XLA writes them to new buffers (the pure-Go backend updates
// them in place, so on the CPU this term is an upper bound); then the float32 logits [B, V] that cross to the
// host, and one layer's activations (MLP gate and up, q/k/v, residual and norm, attention scores and
// probabilities). Growing a session's caches to the next length bucket also holds old and new caches, which
// the same term covers. XLA's own workspace (cuBLAS, fusion buffers) comes on top. In-place cache updates on
// XLA need two upstream changes: a per-parameter "donatable" flag in GoMLX's compute.Builder, and go-xla
// emitting jax.buffer_donor (or tf.aliasing_output) for such parameters.
func EstimateMemory(c Config, dt hf.DType, batch, seq int) (Memory, error) {
	if dt != hf.F32 && dt != hf.BF16 {
		return Memory{}, fmt.Errorf("llama: EstimateMemory: dtype %q is not F32 or BF16 (resolve it with ResolveDType)", dt)
	}
	e := int64(dt.Bits() / 8)
	var mem Memory
	for _, s := range c.deviceSpecs(false) { // sizes only: the layout does not matter
		if len(s.shape) == 1 {
			mem.Weights += 4 * int64(s.size())
		} else {
			mem.Weights += e * int64(s.size())
		}
	}
	B, S := int64(batch), int64(seq)
	L, kvH, hd := int64(c.NumHiddenLayers), int64(c.NumKeyValueHeads), int64(c.HeadDim)
	H, I, V, heads := int64(c.HiddenSize), int64(c.IntermediateSize), int64(c.VocabSize), int64(c.NumAttentionHeads)
	mem.Caches = 2 * L * B * kvH * hd * (S + 1) * e
	mem.Temporaries = mem.Caches + 4*B*V + 4*B*(2*I+(heads+2*kvH)*hd+2*H+2*heads*(S+1))
	return mem, nil
}

// EstimateBackendMemory is EstimateMemory for a model on backend (Options.Backend): the cpu engine keeps
// its caches and activations in float32 whatever dt, so its caches and temporaries are those of F32.
func EstimateBackendMemory(c Config, backend string, dt hf.DType, batch, seq int) (Memory, error) {
	mem, err := EstimateMemory(c, dt, batch, seq)
	if err != nil || Backend(backend) != CPUBackend || dt == hf.F32 {
		return mem, err
	}
	f32, err := EstimateMemory(c, hf.F32, batch, seq)
	mem.Caches, mem.Temporaries = f32.Caches, f32.Temporaries
	return mem, err
}
