package tiny

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // the graph DSL reads best unqualified
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gasplab/gasp/pkg/llama"
)

// weights holds the model's parameters as flat float32 slices, in the order of llama.Config.WeightNames.
// Graphs take them as parameters (see logitsGraph), so the trainer can run Adam as a plain graph function:
// parameters and optimizer moments in, updated ones out.
type weights struct {
	cfg    llama.Config
	names  []string
	shapes [][]int
	data   [][]float32
}

// newWeights draws the initial values from rng: embeddings and linear weights normal with standard deviation
// 0.02 (the output projections of attention and MLP scaled by 1/sqrt(2·layers)), norms 1.
func newWeights(cfg llama.Config, rng *rand.Rand) *weights {
	w := &weights{cfg: cfg, names: cfg.WeightNames()}
	resid := 0.02 / math.Sqrt(2*float64(cfg.NumHiddenLayers))
	for _, name := range w.names {
		shape, _ := cfg.WeightShape(name)
		data := make([]float32, numElements(shape))
		switch {
		case len(shape) == 1:
			for j := range data {
				data[j] = 1
			}
		default:
			std := 0.02
			if strings.HasSuffix(name, "o_proj.weight") || strings.HasSuffix(name, "down_proj.weight") {
				std = resid
			}
			for j := range data {
				data[j] = float32(rng.NormFloat64() * std)
			}
		}
		w.shapes = append(w.shapes, shape)
		w.data = append(w.data, data)
	}
	return w
}

// fromWeights takes the values keyed by Hugging Face name (not copied).
func fromWeights(cfg llama.Config, values map[string][]float32) (*weights, error) {
	w := &weights{cfg: cfg, names: cfg.WeightNames()}
	for _, name := range w.names {
		shape, _ := cfg.WeightShape(name)
		data, ok := values[name]
		if !ok {
			return nil, fmt.Errorf("tiny: weight %q missing", name)
		}
		if len(data) != numElements(shape) {
			return nil, fmt.Errorf("tiny: weight %q has %d values, want %d", name, len(data), numElements(shape))
		}
		w.shapes = append(w.shapes, shape)
		w.data = append(w.data, data)
	}
	return w, nil
}

func numElements(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// tensors returns the weights as tensors, in order, for an Exec's parameters.
func (w *weights) tensors() []*tensors.Tensor {
	ts := make([]*tensors.Tensor, len(w.data))
	for i, d := range w.data {
		ts[i] = tensors.FromFlatDataAndDimensions(d, w.shapes[i]...)
	}
	return ts
}

// values returns the weights keyed by Hugging Face name.
func (w *weights) values() map[string][]float32 {
	out := make(map[string][]float32, len(w.names))
	for i, name := range w.names {
		out[name] = w.data[i]
	}
	return out
}

// linear multiplies x [N, in] by a Hugging Face Linear weight [out, in].
func linear(x, w *Node) *Node { return DotGeneral(x, []int{1}, nil, w, []int{1}, nil) }

func rmsNorm(x, w *Node, eps float64) *Node {
	ms := ReduceMean(Mul(x, x), -1)
	return Mul(Div(x, InsertAxes(Sqrt(AddScalar(ms, eps)), -1)), InsertAxes(w, 0))
}

// ropeTables returns cos and sin [T, HeadDim/2] of position·f_i, as pkg/llama computes them.
func ropeTables(cfg llama.Config, T int) (cos, sin []float32) {
	f := cfg.InvFreq()
	half := len(f)
	cos, sin = make([]float32, T*half), make([]float32, T*half)
	for p := range T {
		for i, fi := range f {
			s, c := math.Sincos(float64(p) * fi)
			cos[p*half+i], sin[p*half+i] = float32(c), float32(s)
		}
	}
	return cos, sin
}

// logitsGraph is the Llama forward pass over tokens [B, T] (all rows starting at position 0), with causal
// attention: logits [B·T, V]. It is the computation of llama.Model.Forward, batched.
func (w *weights) logitsGraph(p []*Node, tokens *Node) *Node {
	g := tokens.Graph()
	c := w.cfg
	B, T := tokens.Shape().Dimensions[0], tokens.Shape().Dimensions[1]
	nh, kvh, hd := c.NumAttentionHeads, c.NumKeyValueHeads, c.HeadDim
	G := nh / kvh
	half := hd / 2
	cosT, sinT := ropeTables(c, T)
	cosF, sinF := make([]float32, T*hd), make([]float32, T*hd)
	for pos := range T {
		for i := range half {
			cosF[pos*hd+i], cosF[pos*hd+half+i] = cosT[pos*half+i], cosT[pos*half+i]
			sinF[pos*hd+i], sinF[pos*hd+half+i] = sinT[pos*half+i], sinT[pos*half+i]
		}
	}
	// rotate_half(x) = concat(-x[half:], x[:half]) as a product with a constant matrix: the gradient of Slice
	// needs Pad, which the pure-Go backend lacks.
	rot := make([]float32, hd*hd)
	for j := range half {
		rot[(j+half)*hd+j] = -1
		rot[j*hd+j+half] = 1
	}
	cos := Reshape(Const(g, cosF), 1, T, 1, hd)
	sin := Reshape(Const(g, sinF), 1, T, 1, hd)
	rotM := Reshape(Const(g, rot), hd, hd)
	rope := func(x *Node) *Node { // x [B, T, heads, hd]
		r := DotGeneral(x, []int{3}, nil, rotM, []int{0}, nil)
		return Add(Mul(x, cos), Mul(r, sin))
	}
	mask := make([]float32, T*T)
	for i := range T {
		for j := i + 1; j < T; j++ {
			mask[i*T+j] = float32(math.Inf(-1))
		}
	}
	bias := Reshape(Const(g, mask), 1, 1, 1, T, T)

	embed := p[0]
	x := Gather(embed, Reshape(tokens, B*T, 1)) // [B·T, H]
	const per = 9
	for l := range c.NumHiddenLayers {
		lw := p[1+l*per : 1+(l+1)*per]
		h := rmsNorm(x, lw[0], c.RMSNormEps)
		q := rope(Reshape(linear(h, lw[1]), B, T, nh, hd))
		k := rope(Reshape(linear(h, lw[2]), B, T, kvh, hd))
		v := Reshape(linear(h, lw[3]), B, T, kvh, hd)
		q = MulScalar(q, 1/math.Sqrt(float64(hd)))
		q5 := Reshape(q, B, T, kvh, G, hd)
		// scores [B, kvh, T, G, T]
		scores := DotGeneral(q5, []int{4}, []int{0, 2}, k, []int{3}, []int{0, 2})
		scores = TransposeAllAxes(scores, 0, 1, 3, 2, 4) // [B, kvh, G, Tq, Tk]
		probs := Softmax(Add(scores, bias), -1)
		o := DotGeneral(probs, []int{4}, []int{0, 1}, v, []int{1}, []int{0, 2}) // [B, kvh, G, Tq, hd]
		o = Reshape(TransposeAllAxes(o, 0, 3, 1, 2, 4), B*T, nh*hd)
		x = Add(x, linear(o, lw[4]))
		h = rmsNorm(x, lw[5], c.RMSNormEps)
		gate := linear(h, lw[6])
		x = Add(x, linear(Mul(Mul(gate, Sigmoid(gate)), linear(h, lw[7])), lw[8]))
	}
	head := embed
	if !c.TieWordEmbeddings {
		head = p[len(p)-1]
	}
	return linear(rmsNorm(x, p[1+c.NumHiddenLayers*per], c.RMSNormEps), head)
}

// lossGraph returns the summed negative log-likelihood of targets [B, T] weighted by mask [B, T] (0 or 1)
// and the total weight.
func (w *weights) lossGraph(p []*Node, tokens, targets, mask *Node) (nll *Node) {
	V := w.cfg.VocabSize
	logits := w.logitsGraph(p, tokens)
	logp := LogSoftmax(logits, -1)
	n := logits.Shape().Dimensions[0]
	picked := ReduceSum(Mul(logp, OneHot(Reshape(targets, n), V, dtypes.Float32)), -1)
	return Neg(ReduceAllSum(Mul(picked, Reshape(mask, n))))
}
