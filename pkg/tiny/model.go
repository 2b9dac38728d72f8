package tiny

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // the graph DSL reads best unqualified
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/gasplab/gasp/pkg/llama"
)

// weights holds the model's parameters as GoMLX context variables, in the order of llama.Config.WeightNames.
type weights struct {
	cfg   llama.Config
	names []string
	vars  []*context.Variable
}

// newWeights creates the variables in ctx with their initial values, drawn from rng: embeddings and linear
// weights normal with standard deviation 0.02 (the output projections of attention and MLP scaled by
// 1/sqrt(2·layers)), norms 1.
func newWeights(ctx *context.Context, cfg llama.Config, rng *rand.Rand) *weights {
	w := &weights{cfg: cfg, names: cfg.WeightNames()}
	resid := 0.02 / math.Sqrt(2*float64(cfg.NumHiddenLayers))
	for i, name := range w.names {
		shape, _ := cfg.WeightShape(name)
		n := 1
		for _, d := range shape {
			n *= d
		}
		data := make([]float32, n)
		switch {
		case len(shape) == 1:
			for j := range data {
				data[j] = 1
			}
		default:
			std := 0.02
			if hasSuffix(name, "o_proj.weight") || hasSuffix(name, "down_proj.weight") {
				std = resid
			}
			for j := range data {
				data[j] = float32(rng.NormFloat64() * std)
			}
		}
		w.vars = append(w.vars, ctx.VariableWithValue(fmt.Sprintf("w%03d", i), tensors.FromFlatDataAndDimensions(data, shape...)))
	}
	return w
}

// fromWeights creates the variables from given values, keyed by Hugging Face name.
func fromWeights(ctx *context.Context, cfg llama.Config, values map[string][]float32) (*weights, error) {
	w := &weights{cfg: cfg, names: cfg.WeightNames()}
	for i, name := range w.names {
		shape, _ := cfg.WeightShape(name)
		data, ok := values[name]
		if !ok {
			return nil, fmt.Errorf("tiny: weight %q missing", name)
		}
		w.vars = append(w.vars, ctx.VariableWithValue(fmt.Sprintf("w%03d", i), tensors.FromFlatDataAndDimensions(data, shape...)))
	}
	return w, nil
}

func hasSuffix(s, suf string) bool { return len(s) >= len(suf) && s[len(s)-len(suf):] == suf }

// values copies the current weights out of the context.
func (w *weights) values() (map[string][]float32, error) {
	out := make(map[string][]float32, len(w.names))
	for i, v := range w.vars {
		t, err := v.Value()
		if err != nil {
			return nil, err
		}
		data, err := tensors.CopyFlatData[float32](t)
		if err != nil {
			return nil, err
		}
		out[w.names[i]] = data
	}
	return out, nil
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
func (w *weights) logitsGraph(g *Graph, tokens *Node) *Node {
	c := w.cfg
	B, T := tokens.Shape().Dimensions[0], tokens.Shape().Dimensions[1]
	nh, kvh, hd := c.NumAttentionHeads, c.NumKeyValueHeads, c.HeadDim
	G := nh / kvh
	half := hd / 2
	p := make([]*Node, len(w.vars))
	for i, v := range w.vars {
		p[i] = v.ValueGraph(g)
	}
	cosT, sinT := ropeTables(c, T)
	cosF, sinF := make([]float32, T*hd), make([]float32, T*hd)
	for p := range T {
		for i := range half {
			cosF[p*hd+i], cosF[p*hd+half+i] = cosT[p*half+i], cosT[p*half+i]
			sinF[p*hd+i], sinF[p*hd+half+i] = sinT[p*half+i], sinT[p*half+i]
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
func (w *weights) lossGraph(g *Graph, tokens, targets, mask *Node) (nll *Node) {
	V := w.cfg.VocabSize
	logits := w.logitsGraph(g, tokens)
	logp := LogSoftmax(logits, -1)
	n := logits.Shape().Dimensions[0]
	picked := ReduceSum(Mul(logp, OneHot(Reshape(targets, n), V, dtypes.Float32)), -1)
	return Neg(ReduceAllSum(Mul(picked, Reshape(mask, n))))
}
