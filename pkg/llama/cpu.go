package llama

import (
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/gasplab/gasp/pkg/hf"
	"github.com/gasplab/gasp/pkg/llama/internal/kernels"
)

// The cpu engine exists because the GoMLX graph, interpreted op by op by the pure-Go backend, spent most of
// a decode step outside its matrix kernels (reshapes and concatenations copying tensors, softmax over every
// cache slot); BENCHMARKS.md has the numbers. It differs from the graphs in what it skips, not in what it
// computes:
//
//   - q, k and v are one product with their matrices side by side (Qwen2's biases too, added after it;
//     Qwen3's head norms run in place before the rotation), as are the MLP's gate and up;
//   - each row has its own cache (K transposed, [kvH][hd][cap], so that a query's scores are sums of cache
//     rows; V [kvH][cap][hd]), grown in the length buckets of capFor, and a step attends over that row's own
//     positions only, so rows cost what they hold and rows left out of a step cost nothing;
//   - keys and values are written in place; a prefill copies the prompt's cache into every row;
//   - the last layer of a prefill computes keys and values for every prompt token, and the rest only for the
//     token whose logits are returned.
//
// Sums run in another order than the graphs', so logits differ in the last bits (TestCPUMatchesGoMLX); both
// engines pass the same tests against the numpy reference. Products of at least 2^22 multiply-adds split
// their columns among GOMAXPROCS goroutines. With Options.DType BF16 the weight matrices and the embedding
// are kept in bfloat16 (half the memory, and half the bytes a batch-1 step reads) and widened in the
// kernels; everything else, the caches included, stays float32, so the logits are the float32 engine's on
// the weights rounded to bfloat16 (bit for bit on a bf16 checkpoint, TestCPUBF16). Options.BF16Products
// instead rounds a product's activations to bfloat16 too and multiplies bfloat16 pairs (the matrices in
// the pair layout of kernels.MatMulBF16Pairs): within the numpy reference's bfloat16 tolerance
// (TestBFloat16MatchesReference), and about twice as fast batched where the CPU has AVX512-BF16.

// CPUBackend is the Options.Backend of the hand-written CPU engine: float32 (or bfloat16) weights and float32
// caches in Go memory,
// and the kernels of internal/kernels (AVX-512 or AVX2 on amd64 binaries built with GOEXPERIMENT=simd). It computes
// what the GoMLX graphs compute, with fused projections, attention over each row's own positions only and
// caches updated in place (see the comment at the top of cpu.go).
const CPUBackend = "cpu"

// CPUKernels names the kernels the cpu engine runs here: "AVX-512" or "AVX2" (amd64 binaries built with
// GOEXPERIMENT=simd, on a CPU with them), else "portable Go", several times slower.
func CPUKernels() string { return kernels.Name() }

// SIMDKernels names the kernels the cpu engine would run here in a binary built with GOEXPERIMENT=simd:
// "AVX-512", "AVX2", or "portable Go" where such a build gains nothing.
func SIMDKernels() string { return kernels.SIMDName() }

// cpuModel is the cpu engine's weights, every matrix as [in, out] for kernels.MatMul: each layer's q, k and v
// projections side by side in one matrix, and its gate and up projections likewise.
type cpuModel struct {
	cfg      Config
	embed    matrix // [V, H]
	layers   []cpuLayer
	norm     []float32 // [H]
	head     matrix    // [H, V]
	invFreq  []float64
	cos, sin []float32 // [positions][hd/2]: the rotary table of the first Options.MaxSeq positions
	threads  int       // goroutines a product may use: GOMAXPROCS when the model was made

	mu       sync.Mutex
	last     *cpuPrefix // the last prompt prefilled
	prefixes int        // prompts computed
	// Fresh memory costs a page fault per 4 KiB, more than the arithmetic of a prefill (BENCHMARKS.md), so
	// prefills reuse activations, and the row of the prompt remembered before the last one.
	spareScratch *cpuScratch
	spareRow     *cpuRow
}

type cpuLayer struct {
	attnNorm, mlpNorm []float32 // [H]
	qkv               matrix    // [H, (heads+2·kvHeads)·hd]
	o                 matrix    // [heads·hd, H]
	gateUp            matrix    // [H, 2·I]
	down              matrix    // [I, H]
	qkvBias           []float32 // [(heads+2·kvHeads)·hd]: Qwen2's q, k and v biases side by side; nil for the others
	qNorm, kNorm      []float32 // [hd]: Qwen3's per-head norms; nil for the others
}

// cpuPrefix is a prompt's keys and values in a one-row cache, and the logits that follow it. Sessions copy
// from it under a read lock; once another prompt is remembered, its row becomes the model's spare row, under
// the write lock, and row is nil.
type cpuPrefix struct {
	prompt []int
	logits []float32
	mu     sync.RWMutex
	row    *cpuRow
}

// newCPUModel builds the engine's weights from get, which returns each weight of cfg.weightSpecs in the
// checkpoint's layout ([out, in] for matrices), in bfloat16 when asked (the matrices and the embedding, when
// bf16 is set), else in float32. It asks for them in that order, and a layer's weights are fused and
// transposed before the next layer's are read, so that loading holds at most one layer's weights twice.
// With pairs (and bf16) the product matrices are laid out for kernels.MatMulBF16Pairs (Options.BF16Products).
func newCPUModel(cfg Config, maxSeq int, invFreq []float64, bf16, pairs bool, get func(s weightSpec, bf16 bool) (matrix, error)) (*cpuModel, error) {
	specs := cfg.weightSpecs()
	var err error
	next := func() matrix {
		if err != nil {
			return matrix{}
		}
		var w matrix
		w, err = get(specs[0], bf16 && len(specs[0].shape) == 2)
		specs = specs[1:]
		return w
	}
	H := cfg.HiddenSize
	c := &cpuModel{cfg: cfg, invFreq: invFreq, embed: next(), threads: runtime.GOMAXPROCS(0)}
	for l := range cfg.NumHiddenLayers {
		var w [numLayerWeights]matrix
		for _, s := range cfg.layerSpecs(l) {
			w[s.slot] = next()
		}
		if err != nil {
			return nil, err
		}
		c.layers = append(c.layers, newCPULayer(cfg, &w, c.threads, pairs))
	}
	c.norm = next().f32
	head := c.embed
	if !cfg.TieWordEmbeddings {
		head = next()
	}
	if err != nil {
		return nil, err
	}
	c.head = sideBySide(H, c.threads, head).inPairs(H, pairs)
	half := cfg.HeadDim / 2
	c.cos, c.sin = make([]float32, maxSeq*half), make([]float32, maxSeq*half)
	for pos := range maxSeq {
		rotaryAngles(invFreq, pos, c.cos[pos*half:(pos+1)*half], c.sin[pos*half:(pos+1)*half])
	}
	return c, nil
}

// newCPULayer fuses and transposes a layer's weights, indexed by slot (empty where the family has none), in
// column blocks for threads goroutines (in pair layout with pairs).
func newCPULayer(cfg Config, w *[numLayerWeights]matrix, threads int, pairs bool) cpuLayer {
	H, I, A := cfg.HiddenSize, cfg.IntermediateSize, cfg.NumAttentionHeads*cfg.HeadDim
	ly := cpuLayer{
		attnNorm: w[wInputNorm].f32,
		mlpNorm:  w[wPostNorm].f32,
		qkv:      sideBySide(H, threads, w[wQ], w[wK], w[wV]).inPairs(H, pairs),
		o:        sideBySide(A, threads, w[wO]).inPairs(A, pairs),
		gateUp:   sideBySide(H, threads, w[wGate], w[wUp]).inPairs(H, pairs),
		down:     sideBySide(I, threads, w[wDown]).inPairs(I, pairs),
		qNorm:    w[wQNorm].f32,
		kNorm:    w[wKNorm].f32,
	}
	if w[wQBias].f32 != nil {
		ly.qkvBias = slices.Concat(w[wQBias].f32, w[wKBias].f32, w[wVBias].f32)
	}
	return ly
}

// matrix is a weight matrix of the cpu engine, in float32 or bfloat16 (one of the two is set). A product's
// matrix, [in, out] for kernels.MatMul, is stored in column blocks: block b, the columns [b·block,
// (b+1)·block) of every row (fewer in the last block), is a row-major [in, width] matrix of its own, and the
// blocks follow each other. A goroutine's share of a product is whole blocks, so a batch-1 step reads each
// goroutine's weights as one run of memory. In the plain row-major layout it read each row's share of the
// columns a row apart, a few KB at a time across page boundaries, which the hardware prefetchers do not
// follow, and the product read memory at half the speed of a stream (BENCHMARKS.md). The embedding, read a
// token's row at a time, is plain row-major (block 0).
//
// With pairs set (bfloat16 only), each block is in the pair layout of kernels.MatMulBF16Pairs instead:
// [⌈in/2⌉, width, 2], the bfloat16s of rows 2q and 2q+1 of a column side by side.
type matrix struct {
	f32   []float32
	bf16  []uint16
	block int  // columns per block; 0: plain row-major
	pairs bool // bf16 blocks in pair layout (Options.BF16Products)
}

// maxBlock is the widest column block: the columns of y that a batch-1 product keeps in L1 while it streams
// a block's rows past them (the kernels' own row block).
const maxBlock = 2048

// blockWidth returns the width of the column blocks of a matrix of n columns shared among threads
// goroutines: equal blocks, each a multiple of kernels.ColumnBlock and at most maxBlock wide, as many as a
// multiple of threads, so that the goroutines' shares are equal.
func blockWidth(n, threads int) int {
	threads = max(threads, 1)
	for parts := threads; ; parts += threads {
		w := ((n+parts-1)/parts + kernels.ColumnBlock - 1) / kernels.ColumnBlock * kernels.ColumnBlock
		if w <= maxBlock {
			return w
		}
	}
}

// roundedMatrix returns data rounded to bfloat16 (to nearest, ties to even), as a plain row-major matrix.
func roundedMatrix(data []float32) matrix {
	b := make([]uint16, len(data))
	for i, v := range data {
		b[i] = hf.BFloat16(v)
	}
	return matrix{bf16: b}
}

// row copies row i of a plain row-major matrix of rows of len(dst) elements into dst, widened to float32.
func (w matrix) row(dst []float32, i int) {
	n := len(dst)
	if w.bf16 == nil {
		copy(dst, w.f32[i*n:(i+1)*n])
		return
	}
	for j, h := range w.bf16[i*n : (i+1)*n] {
		dst[j] = hf.BFloat16ToFloat32(h)
	}
}

// sideBySide returns the matrix [in, Σ out_i], in column blocks for threads goroutines, whose columns are
// those of the transposes of mats, each [out_i, in] in the checkpoint's layout (all plain, in one dtype).
func sideBySide(in, threads int, mats ...matrix) matrix {
	width := 0
	for _, m := range mats {
		width += max(len(m.f32), len(m.bf16)) / in
	}
	block := blockWidth(width, threads)
	if mats[0].bf16 != nil {
		bf := make([][]uint16, len(mats))
		for i, m := range mats {
			bf[i] = m.bf16
		}
		return matrix{bf16: blockedOf(in, width, block, bf...), block: block}
	}
	f := make([][]float32, len(mats))
	for i, m := range mats {
		f[i] = m.f32
	}
	return matrix{f32: blockedOf(in, width, block, f...), block: block}
}

// inPairs returns w, a bfloat16 matrix of in rows in column blocks, with its blocks in pair layout, when
// pairs is set and w is bfloat16; else w.
func (w matrix) inPairs(in int, pairs bool) matrix {
	if !pairs || w.bf16 == nil {
		return w
	}
	n := len(w.bf16) / in
	out := make([]uint16, kernels.PairsLen(in, n))
	for c0 := 0; c0 < n; c0 += w.block {
		width := min(w.block, n-c0)
		kernels.PairRows(out[c0*pairRows(in):], w.bf16[c0*in:(c0+width)*in], in, width)
	}
	return matrix{bf16: out, block: w.block, pairs: true}
}

// pairRows is the rows of a matrix of in rows in pair layout, two per pair: in rounded up to even.
func pairRows(in int) int { return (in + 1) / 2 * 2 }

// blockedOf lays out the transposes of mats side by side, [in, width], in column blocks of block columns.
// It copies 16 columns by 256 rows at a time, so that the lines it writes stay in L1 until they are full.
func blockedOf[T any](in, width, block int, mats ...[]T) []T {
	out := make([]T, in*width)
	col := 0
	for _, m := range mats {
		rows := len(m) / in
		for o0 := 0; o0 < rows; o0 += 16 {
			for k0 := 0; k0 < in; k0 += 256 {
				for o := o0; o < min(o0+16, rows); o++ {
					c := col + o
					b := c / block
					bw := min(block, width-b*block)
					dst := out[b*block*in+c-b*block:] // row k of the block at dst[k·bw]
					for k, v := range m[o*in+k0 : o*in+min(k0+256, in)] {
						dst[(k0+k)*bw] = v
					}
				}
			}
		}
		col += rows
	}
	return out
}

// cpuRow is one row's KV cache: per layer K transposed [kvH][hd][cap] (a position is a column, so that a
// query's scores are sums of rows) and V [kvH][cap][hd]. Positions [0, cap) fit; grow makes room. cap is a
// multiple of 16, so that attention computes scores 16 positions at a time.
type cpuRow struct {
	cap  int
	k, v [][]float32
}

// grow makes room for capacity positions, keeping the first keep.
func (r *cpuRow) grow(cfg Config, capacity, keep int) {
	capacity = (capacity + 15) &^ 15
	if capacity <= r.cap {
		return
	}
	old := *r
	L, kvH, hd := cfg.NumHiddenLayers, cfg.NumKeyValueHeads, cfg.HeadDim
	r.cap, r.k, r.v = capacity, make([][]float32, L), make([][]float32, L)
	for l := range L {
		r.k[l], r.v[l] = make([]float32, kvH*hd*capacity), make([]float32, kvH*capacity*hd)
	}
	if old.cap > 0 {
		r.copyPositions(cfg, &old, keep)
	}
}

// copyFrom makes r hold the first n positions of src, with room for capacity ≥ n positions.
func (r *cpuRow) copyFrom(cfg Config, src *cpuRow, n, capacity int) {
	if r.cap < capacity {
		*r = cpuRow{} // nothing to keep
		r.grow(cfg, capacity, 0)
	}
	r.copyPositions(cfg, src, n)
}

// copyPositions copies the keys and values of src's first n positions into r, whatever their capacities.
func (r *cpuRow) copyPositions(cfg Config, src *cpuRow, n int) {
	kvH, hd := cfg.NumKeyValueHeads, cfg.HeadDim
	for l := range r.k {
		for h := range kvH {
			for d := range hd {
				copy(r.k[l][(h*hd+d)*r.cap:][:n], src.k[l][(h*hd+d)*src.cap:][:n])
			}
			copy(r.v[l][h*r.cap*hd:][:n*hd], src.v[l][h*src.cap*hd:][:n*hd])
		}
	}
}

// cpuScratch holds the activations of one pass, reused from pass to pass.
type cpuScratch struct {
	x, h, qkv, att, gu, act, scores []float32
}

func grown(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// pass runs the decoder over tokens ids, token j at position pos[j] of row rows[j], and leaves the final
// hidden states (before the last norm) of the last keep tokens in sc.x [len(ids), H] (the rows before are
// stale): the last layer computes the keys and values of every token, and the rest of the layer for those
// tokens only (a prompt's chunk needs no output but its last token's). It writes each token's key and
// value into its row's cache first, so a token attends to the tokens before it in the same pass.
func (c *cpuModel) pass(sc *cpuScratch, ids []int, rows []*cpuRow, pos []int, keep int) {
	cfg := c.cfg
	n, H, I, hd := len(ids), cfg.HiddenSize, cfg.IntermediateSize, cfg.HeadDim
	heads, kvH := cfg.NumAttentionHeads, cfg.NumKeyValueHeads
	qw := (heads + 2*kvH) * hd
	sc.x, sc.h = grown(sc.x, n*H), grown(sc.h, n*H)
	sc.qkv, sc.att = grown(sc.qkv, n*qw), grown(sc.att, n*heads*hd)
	sc.gu, sc.act = grown(sc.gu, n*2*I), grown(sc.act, n*I)
	for j, id := range ids {
		c.embed.row(sc.x[j*H:(j+1)*H], id)
	}
	eps := float32(cfg.RMSNormEps)
	for l, ly := range c.layers {
		for j := range n {
			kernels.RMSNorm(sc.h[j*H:(j+1)*H], sc.x[j*H:(j+1)*H], ly.attnNorm, eps)
		}
		c.matMul(sc.qkv, sc.h, ly.qkv, n, H, qw, false)
		for j := range n {
			x := sc.qkv[j*qw : (j+1)*qw]
			for i, b := range ly.qkvBias {
				x[i] += b
			}
			if ly.qNorm != nil {
				c.normHeads(x, ly.qNorm, ly.kNorm)
			}
			c.rotateAndStore(l, x, rows[j], pos[j])
		}
		first := 0 // the tokens [first, n) go through the rest of the layer
		if l == len(c.layers)-1 {
			first = n - keep
		}
		m := n - first
		if m == 0 {
			break
		}
		c.attend(sc.att[first*heads*hd:], sc.qkv[first*qw:], &sc.scores, l, rows[first:], pos[first:])
		x, h := sc.x[first*H:], sc.h[first*H:]
		c.matMul(x, sc.att[first*heads*hd:], ly.o, m, heads*hd, H, true)
		for j := range m {
			kernels.RMSNorm(h[j*H:(j+1)*H], x[j*H:(j+1)*H], ly.mlpNorm, eps)
		}
		c.matMul(sc.gu, h, ly.gateUp, m, H, 2*I, false)
		for j := range m {
			g := sc.gu[j*2*I : (j+1)*2*I]
			kernels.SiLUMul(sc.act[j*I:(j+1)*I], g[:I], g[I:])
		}
		c.matMul(x, sc.act, ly.down, m, I, H, true)
	}
}

// normHeads RMS-normalizes each query head of a token's qkv [(heads+2·kvH)·hd] in place with weights qNorm
// [hd], and each key head with kNorm (Qwen3).
func (c *cpuModel) normHeads(qkv, qNorm, kNorm []float32) {
	hd, heads, kvH := c.cfg.HeadDim, c.cfg.NumAttentionHeads, c.cfg.NumKeyValueHeads
	eps := float32(c.cfg.RMSNormEps)
	for h := range heads + kvH {
		w := qNorm
		if h >= heads {
			w = kNorm
		}
		kernels.RMSNorm(qkv[h*hd:(h+1)*hd], qkv[h*hd:(h+1)*hd], w, eps)
	}
}

// rotateAndStore applies the rotary embedding of position pos to a token's queries and keys (in the
// "rotate_half" convention), scales the queries by 1/√hd, and writes its key and value into row's cache.
func (c *cpuModel) rotateAndStore(l int, qkv []float32, row *cpuRow, pos int) {
	cfg := c.cfg
	hd, half, heads, kvH := cfg.HeadDim, cfg.HeadDim/2, cfg.NumAttentionHeads, cfg.NumKeyValueHeads
	cos, sin := c.rope(pos)
	scale := float32(1 / math.Sqrt(float64(hd)))
	for h := range heads + kvH {
		x := qkv[h*hd : (h+1)*hd]
		for i := range half {
			a, b := x[i], x[i+half]
			x[i], x[i+half] = a*cos[i]-b*sin[i], b*cos[i]+a*sin[i]
		}
		if h < heads {
			for i := range x {
				x[i] *= scale
			}
		}
	}
	k, v := qkv[heads*hd:(heads+kvH)*hd], qkv[(heads+kvH)*hd:]
	kt, vs := row.k[l], row.v[l]
	for h := range kvH {
		for d := range hd {
			kt[(h*hd+d)*row.cap+pos] = k[h*hd+d]
		}
		copy(vs[(h*row.cap+pos)*hd:][:hd], v[h*hd:(h+1)*hd])
	}
}

// rope returns the cos and sin of position pos's rotary angles, from the table when it has the position.
func (c *cpuModel) rope(pos int) (cos, sin []float32) {
	half := c.cfg.HeadDim / 2
	if (pos+1)*half <= len(c.cos) {
		return c.cos[pos*half : (pos+1)*half], c.sin[pos*half : (pos+1)*half]
	}
	cos, sin = make([]float32, half), make([]float32, half)
	rotaryAngles(c.invFreq, pos, cos, sin)
	return cos, sin
}

// attend computes the attention output att [len(rows), heads·hd] of tokens whose queries, keys and values
// are qkv [len(rows), (heads+2·kvH)·hd]: softmax(q·K/√hd)·V over positions 0..pos[j] of its row, the
// queries of a group of heads sharing one key/value head. scores is scratch.
func (c *cpuModel) attend(att, qkv []float32, scores *[]float32, l int, rows []*cpuRow, pos []int) {
	cfg := c.cfg
	hd, heads, kvH := cfg.HeadDim, cfg.NumAttentionHeads, cfg.NumKeyValueHeads
	qw, group := (heads+2*kvH)*hd, heads/kvH
	negInf := float32(math.Inf(-1))
	for j, row := range rows {
		n := pos[j] + 1
		// Scores and softmax run over whole vectors: the positions past n get scores (of stale keys), then
		// -inf, and weights of e^-87 ≈ 1e-38 at most that the weighted sum leaves out.
		padded := (n + 15) &^ 15
		s := grown(*scores, padded)
		*scores = s
		for h := range heads {
			g := h / group
			kernels.WeightedSum(s, qkv[j*qw+h*hd:j*qw+(h+1)*hd], row.k[l][g*hd*row.cap:], row.cap)
			for i := n; i < padded; i++ {
				s[i] = negInf
			}
			kernels.Softmax(s)
			kernels.WeightedSum(att[(j*heads+h)*hd:][:hd], s[:n], row.v[l][g*row.cap*hd:], hd)
		}
	}
}

// matMul is kernels.MatMul, its column blocks shared among c.threads goroutines when the product is large:
// from about 0.1 ms of work, 2^22 multiply-adds with vector kernels, 2^17 with the portable ones (~30×
// slower), and an eighth of that for a single row (batch-1 decoding), whose time goes to reading w from
// memory, which two cores do faster than one.
// Each column's sum is the same however the columns are shared.
func (c *cpuModel) matMul(y, x []float32, w matrix, m, k, n int, accumulate bool) {
	minWork := 1 << 22 // multiply-adds a goroutine is worth
	if !kernels.Fast() {
		minWork = 1 << 17
	}
	work := m * k * n
	if m == 1 {
		work *= 8 // a single row is bound by reading w: its time is w's bytes, not its multiply-adds
	}
	blocks := (n + w.block - 1) / w.block
	parts := min(c.threads, work/minWork, blocks)
	if parts <= 1 {
		w.product(y, x, m, k, n, 0, blocks, accumulate)
		return
	}
	var wg sync.WaitGroup
	for p := range parts {
		b0, b1 := blocks*p/parts, blocks*(p+1)/parts
		wg.Go(func() { w.product(y, x, m, k, n, b0, b1, accumulate) })
	}
	wg.Wait()
}

// blockRows holds a product's rows of y for one column block (see product).
var blockRows = sync.Pool{New: func() any { return new([]float32) }}

// product runs kernels.MatMul, MatMulBF16 or MatMulBF16Pairs, as w is stored, over the column blocks [b0,
// b1) of w. MatMulBF16Pairs fills y's columns of a block in place (its y rows may be further apart than the
// block is wide), as the others do for a single row or a single block; otherwise the block's product fills
// (or adds to) a copy of them, [m, width], that goes back into y.
func (w matrix) product(y, x []float32, m, k, n, b0, b1 int, accumulate bool) {
	if m == 1 || w.block >= n || w.pairs {
		for b := b0; b < b1; b++ {
			c0 := b * w.block
			width := min(w.block, n-c0)
			w.blockProduct(y[c0:c0+(m-1)*n+width], n, x, m, k, c0, width, accumulate)
		}
		return
	}
	rows := blockRows.Get().(*[]float32)
	defer blockRows.Put(rows)
	for b := b0; b < b1; b++ {
		c0 := b * w.block
		width := min(w.block, n-c0)
		*rows = grown(*rows, m*width)
		yb := *rows
		if accumulate {
			for i := range m {
				copy(yb[i*width:(i+1)*width], y[i*n+c0:])
			}
		}
		w.blockProduct(yb, width, x, m, k, c0, width, accumulate)
		for i := range m {
			copy(y[i*n+c0:i*n+c0+width], yb[i*width:])
		}
	}
}

// blockProduct sets yb (+)= x·(the column block of w from column c0, width wide), yb [m, width] with rows
// ldy apart: ldy = width, or, for a single row or a matrix in pair layout, any ldy ≥ width.
func (w matrix) blockProduct(yb []float32, ldy int, x []float32, m, k, c0, width int, accumulate bool) {
	switch {
	case w.pairs:
		kp := pairRows(k)
		kernels.MatMulBF16Pairs(yb, ldy, x, w.bf16[c0*kp:(c0+width)*kp], m, k, width, accumulate)
	case w.bf16 != nil:
		kernels.MatMulBF16(yb, x, w.bf16[c0*k:(c0+width)*k], m, k, width, accumulate)
	default:
		kernels.MatMul(yb, x, w.f32[c0*k:(c0+width)*k], m, k, width, accumulate)
	}
}

// logits returns the logits of the hidden states sc.x of the tokens listed in which (all when nil), each
// a fresh slice of VocabSize float32s.
func (c *cpuModel) logits(sc *cpuScratch, which []int) [][]float32 {
	H, V := c.cfg.HiddenSize, c.cfg.VocabSize
	if which == nil {
		which = make([]int, len(sc.x)/H)
		for i := range which {
			which[i] = i
		}
	}
	n := len(which)
	h := grown(sc.h, n*H)
	for i, j := range which {
		kernels.RMSNorm(h[i*H:(i+1)*H], sc.x[j*H:(j+1)*H], c.norm, float32(c.cfg.RMSNormEps))
	}
	flat := make([]float32, n*V)
	c.matMul(flat, h, c.head, n, H, V, false)
	out := make([][]float32, n)
	for i := range out {
		out[i] = flat[i*V : (i+1)*V : (i+1)*V]
	}
	return out
}

// cpuChunk is the most prompt tokens one pass computes: it bounds the activations a long prompt needs.
const cpuChunk = 256

// prefill computes prompt into row (positions 0..len(prompt)-1, room for capacity) in chunks, and returns the
// logits after its last token, or after every token when all is set.
func (c *cpuModel) prefill(row *cpuRow, prompt []int, capacity int, all bool) [][]float32 {
	row.grow(c.cfg, capacity, 0)
	sc := takeSpare(&c.mu, &c.spareScratch)
	defer func() {
		c.mu.Lock()
		c.spareScratch = sc
		c.mu.Unlock()
	}()
	var out [][]float32
	for start := 0; start < len(prompt); start += cpuChunk {
		ids := prompt[start:min(start+cpuChunk, len(prompt))]
		rows, pos := make([]*cpuRow, len(ids)), make([]int, len(ids))
		for i := range ids {
			rows[i], pos[i] = row, start+i
		}
		keep := 0
		switch {
		case all:
			keep = len(ids)
		case start+len(ids) == len(prompt):
			keep = 1
		}
		c.pass(sc, ids, rows, pos, keep)
		if all {
			out = append(out, c.logits(sc, nil)...)
		} else if start+len(ids) == len(prompt) {
			out = c.logits(sc, []int{len(ids) - 1})
		}
	}
	return out
}

// forward is Model.Forward on the cpu engine: a prefill of ids into a scratch row, every position's logits.
func (c *cpuModel) forward(ids []int) [][]float32 {
	return c.prefill(&cpuRow{}, ids, len(ids), true)
}

// prefix returns the keys, values and logits of prompt, read-locked (the caller copies from it, then calls
// p.mu.RUnlock): the remembered ones when prompt is the last prompt prefilled, else computed, and remembered.
func (c *cpuModel) prefix(prompt []int) *cpuPrefix {
	c.mu.Lock()
	p := c.last
	c.mu.Unlock()
	if p != nil && slices.Equal(p.prompt, prompt) {
		p.mu.RLock()
		if p.row != nil {
			return p
		}
		p.mu.RUnlock() // replaced since, and recycled
	}
	row := takeSpare(&c.mu, &c.spareRow)
	p = &cpuPrefix{prompt: slices.Clone(prompt), row: row}
	p.logits = c.prefill(row, prompt, len(prompt), false)[0]
	p.mu.RLock()
	c.mu.Lock()
	old := c.last
	c.last = p
	c.prefixes++
	c.mu.Unlock()
	if old != nil {
		old.mu.Lock() // waits for the sessions copying from it
		row, old.row = old.row, nil
		old.mu.Unlock()
		if row != nil {
			c.mu.Lock()
			c.spareRow = row
			c.mu.Unlock()
		}
	}
	return p
}

// computedPrefixes returns the number of prompts Session.Prefill has computed rather than remembered.
func (m *Model) computedPrefixes() int {
	m.mu.Lock()
	n, c := m.prefixes, m.cpu
	m.mu.Unlock()
	if c != nil {
		c.mu.Lock()
		n += c.prefixes
		c.mu.Unlock()
	}
	return n
}

// takeSpare returns *spare and leaves nil in its place, under mu, or a new T when there is none.
func takeSpare[T any](mu *sync.Mutex, spare **T) *T {
	mu.Lock()
	t := *spare
	*spare = nil
	mu.Unlock()
	if t == nil {
		t = new(T)
	}
	return t
}
