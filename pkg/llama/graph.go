package llama

import (
	"fmt"
	"math"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // the graph DSL reads best unqualified
)

// This file builds the computation graphs. Five kinds exist, all with fixed shapes:
//
//   - decode(B): one token for each of B rows, attending that row's KV cache. Inputs: the weights, tokens
//     [B], cos and sin [B, HeadDim/2] (the rotary angles of each row's position), the attention bias [B, S+1]
//     (0 where a cache slot may be attended, -inf elsewhere), the write index [B, 2] = (row, slot), and the
//     caches. Outputs: logits [B, V] and the updated caches.
//   - prefill: a chunk of C prompt tokens of one sequence, written into a one-row cache. Inputs: tokens [C],
//     cos, sin [C, HeadDim/2], bias [C, S+1], write index [1, C, 2], the position [1] in the chunk of the last
//     real token, and the caches. Outputs: logits [1, V] at that position and the updated caches.
//   - forward(T): T tokens without a cache (for tests). Inputs: tokens [T], cos, sin [T, HeadDim/2], the causal
//     bias [T, T]. Output: logits [T, V].
//   - zeros(B), fill(B) and grow(B) make, copy and enlarge caches on the device, so a cache never crosses to
//     the host: a new session's zeroed caches; a prefilled one-row cache broadcast into every row of a
//     session (Session.Prefill); a session's caches enlarged from S to S' positions, contents kept.
//
// S here is a cache's capacity, not the session's length limit: a session's caches hold a length bucket
// (capFor: 64, 96, 128, 192, 256, ...) and grow to the next one when a row needs it, so a step attends over
// at most 1.5 times the positions its rows have reached and costs O(rows' lengths), not O(MaxSeq). Each
// capacity compiles its own decode graph.
//
// Positions, masks and write slots are inputs computed on the host, so one compiled graph serves every step.
//
// The caches of a layer are K [B, kvHeads, HeadDim, S+1] and V [B, kvHeads, S+1, HeadDim] (S the session's cache
// length), in the model's dtype (float32 or bfloat16; activations are float32 and a product with a bfloat16
// operand rounds the other operand to bfloat16 and accumulates in float32, see dot): both
// are the right-hand side of attention's products in the [batch, contracting, cross] layout the pure-Go
// backend's SIMD kernels run fastest on (as the transposed Linear weights, see Config.deviceSpecs), so
// attention reads them without a transposed copy. Slot S is a scratch slot that is never attended: rows that
// are not stepped, and the padding of a prefill chunk, write there.
//
// A cache write must replace the slot's old value exactly, in place, and touch nothing else. The pure-Go
// backend has neither DynamicUpdateSlice nor ScatterUpdate (graph.ScatterUpdate costs a full-size mask and
// Where). Instead, ScatterMin with -inf followed by ScatterMax with the new values sets the slots to exactly
// the new values; both scatters reuse the donated cache buffer, so a write costs O(B·kvHeads·HeadDim).

// weightNodes are the weight parameters of a graph. A layer's slots that its family lacks (Qwen2's biases,
// Qwen3's q/k norms) are nil.
type weightNodes struct {
	embed  *Node
	layers [][numLayerWeights]*Node
	norm   *Node
	head   *Node
}

// weightParams declares the weights as the graph's first parameters, in the order of Config.deviceSpecs.
func (m *Model) weightParams(g *Graph) weightNodes {
	specs := m.cfg.deviceSpecs(m.transposed)
	w := weightNodes{layers: make([][numLayerWeights]*Node, m.cfg.NumHiddenLayers)}
	for i, s := range specs {
		p := Parameter(g, s.name, shapes.Make(m.weightDType(s), s.shape...))
		switch {
		case s.layer >= 0:
			w.layers[s.layer][s.slot] = p
		case i == 0:
			w.embed = p
		case s.name == normName:
			w.norm = p
		}
		w.head = p // the last: lm_head, or the tied embedding's copy
	}
	return w
}

// cacheParams declares the KV caches of a batch of B rows of S1 slots.
func (m *Model) cacheParams(g *Graph, B, S1 int) (k, v []*Node) {
	c := m.cfg
	for l := range c.NumHiddenLayers {
		k = append(k, Parameter(g, fmt.Sprintf("k_cache.%d", l), m.kShape(B, S1)))
		v = append(v, Parameter(g, fmt.Sprintf("v_cache.%d", l), m.vShape(B, S1)))
	}
	return k, v
}

// kShape and vShape are the shapes of a layer's K and V caches for B rows of S1 slots.
func (m *Model) kShape(B, S1 int) shapes.Shape {
	return shapes.Make(m.dtype, B, m.cfg.NumKeyValueHeads, m.cfg.HeadDim, S1)
}

func (m *Model) vShape(B, S1 int) shapes.Shape {
	return shapes.Make(m.dtype, B, m.cfg.NumKeyValueHeads, S1, m.cfg.HeadDim)
}

// dot is DotGeneral with a float32 result: when b is bfloat16, a is rounded to bfloat16 and the product
// accumulates and returns float32 (on a GPU, a bf16 matrix multiplication with f32 accumulation).
func dot(a *Node, aContract, aBatch []int, b *Node, bContract, bBatch []int) *Node {
	if b.DType() == dtypes.Float32 {
		return DotGeneral(a, aContract, aBatch, b, bContract, bBatch)
	}
	a = ConvertDType(a, b.DType())
	return Dot(a, b).WithAccumulatorDType(dtypes.Float32).WithOutputDType(dtypes.Float32).General(aContract, aBatch, bContract, bBatch)
}

// linear multiplies x [N, in] by a Linear weight w: [N, out]. w is [in, out] where the model keeps its
// weights transposed (Model.transposed), else [out, in] as Hugging Face stores it.
func (m *Model) linear(x, w *Node) *Node {
	if m.transposed {
		return dot(x, []int{1}, nil, w, []int{0}, nil)
	}
	return dot(x, []int{1}, nil, w, []int{1}, nil)
}

// embed looks up the float32 embeddings of tokens [N]: [N, H].
func embed(w, tokens *Node) *Node {
	N := tokens.Shape().Dimensions[0]
	return ConvertDType(Gather(w, Reshape(tokens, N, 1)), dtypes.Float32)
}

// rmsNorm normalizes x [N, H] over its last axis and scales by w [H].
func rmsNorm(x, w *Node, eps float64) *Node {
	ms := ReduceMean(Mul(x, x), -1)
	inv := Rsqrt(AddScalar(ms, eps))
	return Mul(Mul(x, InsertAxes(inv, -1)), InsertAxes(w, 0))
}

// rope rotates x [N, heads, hd] by the angles whose cos and sin [N, hd/2] are given, in the "rotate_half"
// convention of Hugging Face Llama: the pairs are (x[i], x[i+hd/2]).
func rope(x, cos, sin *Node) *Node {
	N, hd := x.Shape().Dimensions[0], x.Shape().Dimensions[2]
	half := hd / 2
	x1 := Slice(x, AxisRange(), AxisRange(), AxisRange(0, half))
	x2 := Slice(x, AxisRange(), AxisRange(), AxisRange(half, hd))
	c := Reshape(cos, N, 1, half)
	s := Reshape(sin, N, 1, half)
	return Concatenate([]*Node{Sub(Mul(x1, c), Mul(x2, s)), Add(Mul(x2, c), Mul(x1, s))}, -1)
}

// mlp is the SwiGLU feed-forward block: down(silu(gate(x)) · up(x)).
func (m *Model) mlp(x *Node, w *[numLayerWeights]*Node) *Node {
	gate := m.linear(x, w[wGate])
	up := m.linear(x, w[wUp])
	return m.linear(Mul(Mul(gate, Sigmoid(gate)), up), w[wDown])
}

// qkv projects the normalized hidden states h [N, H] to rotated queries [N, heads, hd], pre-scaled by
// 1/sqrt(hd), rotated keys and values [N, kvHeads, hd]; with the family's biases (Qwen2) added to the
// projections, and its norms (Qwen3) applied to each query and key head before the rotation.
func (m *Model) qkv(h *Node, w *[numLayerWeights]*Node, cos, sin *Node) (q, k, v *Node) {
	c := m.cfg
	N := h.Shape().Dimensions[0]
	proj := func(wi, bi, heads int) *Node {
		x := m.linear(h, w[wi])
		if b := w[bi]; b != nil {
			x = Add(x, InsertAxes(b, 0))
		}
		return Reshape(x, N, heads, c.HeadDim)
	}
	q = proj(wQ, wQBias, c.NumAttentionHeads)
	k = proj(wK, wKBias, c.NumKeyValueHeads)
	v = proj(wV, wVBias, c.NumKeyValueHeads)
	if w[wQNorm] != nil {
		q = headNorm(q, w[wQNorm], c.RMSNormEps)
		k = headNorm(k, w[wKNorm], c.RMSNormEps)
	}
	q = MulScalar(rope(q, cos, sin), 1/math.Sqrt(float64(c.HeadDim)))
	k = rope(k, cos, sin)
	return q, k, v
}

// headNorm RMS-normalizes each head of x [N, heads, hd] and scales it by w [hd] (Qwen3's q_norm, k_norm).
func headNorm(x, w *Node, eps float64) *Node {
	d := x.Shape().Dimensions
	return Reshape(rmsNorm(Reshape(x, d[0]*d[1], d[2]), w, eps), d...)
}

// writeCache writes updates [..., kvH, hd] into cache at the (row, slot) pairs of idx [..., 2]. slotAxis is
// the cache axis indexed by slot: 3 for K [B, kvH, hd, S1], 2 for V [B, kvH, S1, hd]. The leading axes of idx
// and updates must match.
func writeCache(cache, idx, updates *Node, slotAxis int) *Node {
	r := idx.Rank() - 1
	window := []int{r, r + 1}
	inserted := []int{0, slotAxis}
	updates = ConvertDType(updates, cache.DType())
	negInf := BroadcastToDims(Infinity(cache.Graph(), cache.DType(), -1), updates.Shape().Dimensions...)
	cache = BackendScatterMin(cache, idx, negInf, r, window, inserted, inserted, false, false)
	return BackendScatterMax(cache, idx, updates, r, window, inserted, inserted, false, false)
}

// attendSeq is the attention of C queries of one sequence: q [C, heads, hd] (pre-scaled) against k
// [kvH, hd, S] and v [kvH, S, hd] with bias [C, S]. It returns [C, heads·hd].
func (m *Model) attendSeq(q, k, v, bias *Node) *Node {
	c := m.cfg
	C := q.Shape().Dimensions[0]
	S := bias.Shape().Dimensions[1]
	kvH, G, hd := c.NumKeyValueHeads, c.NumAttentionHeads/c.NumKeyValueHeads, c.HeadDim
	// Query head j uses KV head j / G (Hugging Face repeat_kv).
	qg := Reshape(TransposeAllAxes(Reshape(q, C, kvH, G, hd), 1, 0, 2, 3), kvH, C*G, hd)
	scores := dot(qg, []int{2}, []int{0}, k, []int{1}, []int{0}) // [kvH, C*G, S]
	scores = Add(Reshape(scores, kvH, C, G, S), Reshape(bias, 1, C, 1, S))
	p := Reshape(Softmax(scores, -1), kvH, C*G, S)
	o := dot(p, []int{2}, []int{0}, v, []int{1}, []int{0}) // [kvH, C*G, hd]
	return Reshape(TransposeAllAxes(Reshape(o, kvH, C, G, hd), 1, 0, 2, 3), C, kvH*G*hd)
}

// buildDecode builds decode(B) for caches of key.seq positions: see the comment at the top of the file.
func (m *Model) buildDecode(g *Graph, key graphKey) []*Node {
	c := m.cfg
	B, S1 := key.rows, key.seq+1
	half := c.HeadDim / 2
	kvH, G, hd := c.NumKeyValueHeads, c.NumAttentionHeads/c.NumKeyValueHeads, c.HeadDim
	w := m.weightParams(g)
	tokens := Parameter(g, "tokens", shapes.Make(dtypes.Int32, B))
	cos := Parameter(g, "cos", shapes.Make(dtypes.Float32, B, half))
	sin := Parameter(g, "sin", shapes.Make(dtypes.Float32, B, half))
	bias := Parameter(g, "bias", shapes.Make(dtypes.Float32, B, S1))
	idx := Parameter(g, "write_index", shapes.Make(dtypes.Int32, B, 2))
	kc, vc := m.cacheParams(g, B, S1)

	bias4 := Reshape(bias, B, 1, 1, S1)
	x := m.layers(&w, embed(w.embed, tokens), cos, sin, func(l int, q, k, v *Node) *Node { // x: [B, H]
		kc[l] = writeCache(kc[l], idx, k, 3)
		vc[l] = writeCache(vc[l], idx, v, 2)
		scores := dot(Reshape(q, B, kvH, G, hd), []int{3}, []int{0, 1}, kc[l], []int{2}, []int{0, 1}) // [B, kvH, G, S1]
		p := Softmax(Add(scores, bias4), -1)
		o := dot(p, []int{3}, []int{0, 1}, vc[l], []int{2}, []int{0, 1}) // [B, kvH, G, hd]
		return Reshape(o, B, kvH*G*hd)
	})
	return withCaches(m.linear(rmsNorm(x, w.norm, c.RMSNormEps), w.head), kc, vc)
}

// layers runs x through the model's decoder layers. attend gives layer l's attention output (before the
// output projection) from its queries, keys and values, rotated.
func (m *Model) layers(w *weightNodes, x, cos, sin *Node, attend func(l int, q, k, v *Node) *Node) *Node {
	eps := m.cfg.RMSNormEps
	for l := range m.cfg.NumHiddenLayers {
		lw := &w.layers[l]
		q, k, v := m.qkv(rmsNorm(x, lw[wInputNorm], eps), lw, cos, sin)
		x = Add(x, m.linear(attend(l, q, k, v), lw[wO]))
		x = Add(x, m.mlp(rmsNorm(x, lw[wPostNorm], eps), lw))
	}
	return x
}

// withCaches returns the outputs of a graph that writes caches: the logits, then each layer's K and V cache.
func withCaches(logits *Node, kc, vc []*Node) []*Node {
	out := []*Node{logits}
	for l := range kc {
		out = append(out, kc[l], vc[l])
	}
	return out
}

// buildPrefill builds prefill for a one-row cache of key.seq positions: see the comment at the top of the file.
func (m *Model) buildPrefill(g *Graph, key graphKey) []*Node {
	c := m.cfg
	S1 := key.seq + 1
	C := m.opts.PrefillChunk
	half := c.HeadDim / 2
	kvH, hd := c.NumKeyValueHeads, c.HeadDim
	w := m.weightParams(g)
	tokens := Parameter(g, "tokens", shapes.Make(dtypes.Int32, C))
	cos := Parameter(g, "cos", shapes.Make(dtypes.Float32, C, half))
	sin := Parameter(g, "sin", shapes.Make(dtypes.Float32, C, half))
	bias := Parameter(g, "bias", shapes.Make(dtypes.Float32, C, S1))
	idx := Parameter(g, "write_index", shapes.Make(dtypes.Int32, 1, C, 2))
	last := Parameter(g, "last", shapes.Make(dtypes.Int32, 1))
	kc, vc := m.cacheParams(g, 1, S1)

	x := m.layers(&w, embed(w.embed, tokens), cos, sin, func(l int, q, k, v *Node) *Node { // x: [C, H]
		kc[l] = writeCache(kc[l], idx, Reshape(k, 1, C, kvH, hd), 3)
		vc[l] = writeCache(vc[l], idx, Reshape(v, 1, C, kvH, hd), 2)
		return m.attendSeq(q, Reshape(kc[l], kvH, hd, S1), Reshape(vc[l], kvH, S1, hd), bias)
	})
	h := Gather(x, Reshape(last, 1, 1)) // [1, H]
	return withCaches(m.linear(rmsNorm(h, w.norm, c.RMSNormEps), w.head), kc, vc)
}

// buildForward builds forward(T): see the comment at the top of the file.
func (m *Model) buildForward(g *Graph, key graphKey) []*Node {
	T := key.rows
	c := m.cfg
	half := c.HeadDim / 2
	w := m.weightParams(g)
	tokens := Parameter(g, "tokens", shapes.Make(dtypes.Int32, T))
	cos := Parameter(g, "cos", shapes.Make(dtypes.Float32, T, half))
	sin := Parameter(g, "sin", shapes.Make(dtypes.Float32, T, half))
	bias := Parameter(g, "bias", shapes.Make(dtypes.Float32, T, T))

	x := m.layers(&w, embed(w.embed, tokens), cos, sin, func(_ int, q, k, v *Node) *Node { // x: [T, H]
		// Keys and values in the caches' dtype, as the cached decoder reads them.
		kT := ConvertDType(TransposeAllAxes(k, 1, 2, 0), m.dtype) // [kvH, hd, T]
		vT := ConvertDType(TransposeAllAxes(v, 1, 0, 2), m.dtype) // [kvH, T, hd]
		return m.attendSeq(q, kT, vT, bias)
	})
	return []*Node{m.linear(rmsNorm(x, w.norm, c.RMSNormEps), w.head)}
}

// buildZeros builds zeros(B): the zeroed caches of a session of B rows (key.rows) of key.seq positions,
// made on the device. No inputs.
func (m *Model) buildZeros(g *Graph, key graphKey) []*Node {
	var out []*Node
	for range m.cfg.NumHiddenLayers {
		out = append(out, Zeros(g, m.kShape(key.rows, key.seq+1)), Zeros(g, m.vShape(key.rows, key.seq+1)))
	}
	return out
}

// buildGrow builds grow(B): caches of B rows (key.rows) of key.seq positions enlarged to key.to positions,
// their contents kept (the scratch slot key.seq becomes an ordinary slot, written before it is attended).
func (m *Model) buildGrow(g *Graph, key graphKey) []*Node {
	kc, vc := m.cacheParams(g, key.rows, key.seq+1)
	extra := key.to - key.seq
	var out []*Node
	for l := range kc {
		kz := Zeros(g, m.kShape(key.rows, extra))
		vz := Zeros(g, m.vShape(key.rows, extra))
		out = append(out, Concatenate([]*Node{kc[l], kz}, 3), Concatenate([]*Node{vc[l], vz}, 2))
	}
	return out
}

// buildFill builds fill(B): caches of B rows (key.rows) of key.seq positions whose every row is the one-row
// cache given, layer by layer (K, V, K, V, ...), on the device.
func (m *Model) buildFill(g *Graph, key graphKey) []*Node {
	kc, vc := m.cacheParams(g, 1, key.seq+1)
	var out []*Node
	for l := range kc {
		out = append(out, BroadcastToShape(kc[l], m.kShape(key.rows, key.seq+1)),
			BroadcastToShape(vc[l], m.vShape(key.rows, key.seq+1)))
	}
	return out
}
