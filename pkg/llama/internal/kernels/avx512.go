//go:build goexperiment.simd && amd64

package kernels

import (
	"math"
	"simd/archsimd"
)

var avx512 = impl{"AVX-512", matMulAVX512, matMulBF16AVX512, matMulBF16PairsAVX512, weightedSumAVX512, softmaxAVX512, siluMulAVX512, rmsNormAVX512}

// implementations lists the implementations this CPU runs, fastest first.
func implementations() []impl {
	var ims []impl
	if archsimd.X86.AVX512() {
		ims = append(ims, avx512)
	}
	if haveAVX2 {
		ims = append(ims, avx2)
	}
	return append(ims, portable)
}

type vec = archsimd.Float32x16

func load(s []float32) vec     { return archsimd.LoadFloat32x16((*[16]float32)(s[:16])) }
func store(v vec, s []float32) { v.Store((*[16]float32)(s[:16])) }
func splat(a float32) vec      { return archsimd.BroadcastFloat32x16(a) }

// matMulAVX512 computes y (+)= x·w in panels of 32 columns of w (2 registers), 8 rows of x at a time (then 4,
// then 1): 16 accumulators, 2 loads of w and 8 broadcasts of x per 16 fused multiply-adds. A panel of w
// (k·128 bytes) stays in L1 while every block of rows passes over it. Columns past the last full panel run in
// Go.
func matMulAVX512(y, x, w []float32, m, k, n, j0, j1 int, accumulate bool) {
	if m == 1 {
		rowAVX512(y, x, w, k, n, j0, j1, accumulate)
		return
	}
	full := j0 + (j1-j0)&^31
	for j := j0; j < full; j += 32 {
		for p0 := 0; p0 < k || p0 == 0; p0 += kBlock {
			p1, acc := min(p0+kBlock, k), accumulate || p0 > 0
			panelTiles(y, x, w, p0*n+j, n, j, m, k, n, p0, p1, acc)
		}
	}
	if full < j1 {
		matMulGeneric(y, x, w, m, k, n, full, j1, accumulate)
	}
}

// panelTiles runs the tiles of all m rows of x over the rows [p0, p1) of the panel of w at column j (its row
// p0 at w[wp], rows wn apart; see tile4x32): 8 rows at a time, then 4, then 1.
func panelTiles(y, x, w []float32, wp, wn, j, m, k, n, p0, p1 int, accumulate bool) {
	i := 0
	for ; i+8 <= m; i += 8 {
		tile8x32(y, x, w, wp, wn, i, j, k, n, p0, p1, accumulate)
	}
	for ; i+4 <= m; i += 4 {
		tile4x32(y, x, w, wp, wn, i, j, k, n, p0, p1, accumulate)
	}
	for ; i < m; i++ {
		tile1x32(y, x, w, wp, wn, i, j, k, n, p0, p1, accumulate)
	}
}

// rowBlock is how many columns of y rowAVX512 keeps in L1 (8 KB) while it streams w's rows past them.
const rowBlock = 2048

// rowAVX512 computes a single row y (+)= x·w, the product of a batch-1 decode step, which is bound by
// reading w from memory: for each block of rowBlock columns it adds x[p]·w[p, block] to y's block for p in
// order, reading each row of w in one contiguous run. The panels of matMulAVX512 would read w 128 bytes
// at a time, a row (n·4 bytes) apart: a new page every read, which the prefetchers do not follow. The
// sums are those of tile1x32, in the same order (y starts at 0 or its value, then one fused multiply-add
// per p), so the results are the same to the bit.
func rowAVX512(y, x, w []float32, k, n, j0, j1 int, accumulate bool) {
	full := j0 + (j1-j0)&^31 // the columns past the last panel of 32 run in Go, as matMulAVX512's do
	rowBlocks(y, x, w, k, n, j0, full, accumulate, rowFMA32)
	if full < j1 {
		matMulGeneric(y, x, w, 1, k, n, full, j1, accumulate)
	}
}

// rowBlocks runs the single-row product over the columns [j0, j1) (a multiple of 16 wide) in blocks of
// rowBlock, with fma adding a·(a row of w's block) to y's block for every p: rowFMA32 over float32 weights,
// rowFMA over bfloat16 ones (one call a row, not a dictionary call a vector).
func rowBlocks[W float32 | uint16](y, x []float32, w []W, k, n, j0, j1 int, accumulate bool, fma func(y []float32, row []W, s vec)) {
	for b0 := j0; b0 < j1; b0 += rowBlock {
		yb := y[b0:min(b0+rowBlock, j1)]
		if !accumulate {
			clear(yb)
		}
		for p, a := range x[:k] {
			fma(yb, w[p*n+b0:p*n+b0+len(yb)], splat(a))
		}
	}
}

// rowFMA32 sets y[j] += s·row[j], 16 at a time (len(y) = len(row), a multiple of 16), through array
// pointers (see rowFMA).
func rowFMA32(y, row []float32, s vec) {
	for len(y) >= 64 {
		yp, wp := (*[64]float32)(y), (*[64]float32)(row)
		fma16f((*[16]float32)(yp[0:16]), (*[16]float32)(wp[0:16]), s)
		fma16f((*[16]float32)(yp[16:32]), (*[16]float32)(wp[16:32]), s)
		fma16f((*[16]float32)(yp[32:48]), (*[16]float32)(wp[32:48]), s)
		fma16f((*[16]float32)(yp[48:64]), (*[16]float32)(wp[48:64]), s)
		y, row = y[64:], row[64:]
	}
	for len(y) >= 16 {
		fma16f((*[16]float32)(y), (*[16]float32)(row), s)
		y, row = y[16:], row[16:]
	}
}

func fma16f(y, w *[16]float32, s vec) {
	archsimd.LoadFloat32x16(w).MulAdd(s, archsimd.LoadFloat32x16(y)).Store(y)
}

// kBlock is how many rows of a panel of w (kBlock·128 bytes: 32 KB, in L1) matMulAVX512 runs every row of x
// over before it goes on to the next rows: a whole panel (k·128 bytes) outgrows L1 and, for the MLP's down
// projection (k = 8192 in a 1B model), L2, and would be read again from memory for every 4 rows of x. The
// partial sums go through y in float32, which changes no bit of them.
const kBlock = 256

// tile4x32 adds the products of rows i..i+3 of x and the panel of w at column j over p0 ≤ p < p1 to y (to 0
// when accumulate is false). The panel's row p0 starts at w[wp] and its rows are wn apart: w itself (wp
// = p0·n+j, wn = n), or a copy of the panel (bfloat16 weights widened, wn = 32).
func tile4x32(y, x, w []float32, wp, wn, i, j, k, n, p0, p1 int, accumulate bool) {
	if o, count := tileBounds(y, x, w, wp, wn, i, j, k, n, p0, p1, 4, 32, accumulate); count > 0 {
		tile4x32AVX512(&y[o], n, &x[i*k+p0], k, &w[wp], wn, count, accumulate)
	}
}

// tile8x32 is tile4x32 for the rows i..i+7 of x: 16 accumulators, 2 loads of w and 8 broadcasts of x per 16
// fused multiply-adds.
func tile8x32(y, x, w []float32, wp, wn, i, j, k, n, p0, p1 int, accumulate bool) {
	if o, count := tileBounds(y, x, w, wp, wn, i, j, k, n, p0, p1, 8, 32, accumulate); count > 0 {
		tile8x32AVX512(&y[o], n, &x[i*k+p0], k, &w[wp], wn, count, accumulate)
	}
}

//go:noescape
func tile8x32AVX512(y *float32, n int, x *float32, k int, w *float32, wn int, count int, accumulate bool)

// tile4x32AVX512 is tile4x32's loop, in tile_amd64.s: the Go compiler gives a fused multiply-add's result
// the register of its first operand, so the accumulators of a loop written with archsimd moved between
// registers every step, and its slices' bounds and lengths spilled to the stack (BENCHMARKS.md, "Column
// blocks and assembly tiles", has what the assembly gains).
//
//go:noescape
func tile4x32AVX512(y *float32, n int, x *float32, k int, w *float32, wn int, count int, accumulate bool)

func tile1x32(y, x, w []float32, wp, wn, i, j, k, n, p0, p1 int, accumulate bool) {
	x0 := x[i*k+p0 : i*k+p1]
	o := i*n + j
	var c0, c1 vec
	if accumulate {
		c0, c1 = load(y[o:]), load(y[o+16:])
	}
	for _, a := range x0 {
		b := splat(a)
		c0 = archsimd.LoadFloat32x16((*[16]float32)(w[wp:wp+16])).MulAdd(b, c0)
		c1 = archsimd.LoadFloat32x16((*[16]float32)(w[wp+16:wp+32])).MulAdd(b, c1)
		wp += wn
	}
	store(c0, y[o:])
	store(c1, y[o+16:])
}

// weightedSumAVX512 runs over 64 outputs at a time (4 accumulators, each a chain over the rows), then 32
// (2 accumulators and two chains: even and odd rows), then 16 (four chains), so that fused multiply-adds
// rarely wait on each other whether the rows are many and short (attention's values) or few and long
// (its keys); the last columns run in Go.
func weightedSumAVX512(out, a, v []float32, stride int) {
	d := 0
	for ; d+64 <= len(out); d += 64 {
		var c0, c1, c2, c3 vec
		off := d
		for _, c := range a {
			b := splat(c)
			row := v[off : off+64]
			c0, c1 = load(row).MulAdd(b, c0), load(row[16:]).MulAdd(b, c1)
			c2, c3 = load(row[32:]).MulAdd(b, c2), load(row[48:]).MulAdd(b, c3)
			off += stride
		}
		store(c0, out[d:])
		store(c1, out[d+16:])
		store(c2, out[d+32:])
		store(c3, out[d+48:])
	}
	for ; d+32 <= len(out); d += 32 {
		var e0, e1, o0, o1 vec
		off, p := d, 0
		for ; p+2 <= len(a); p += 2 {
			b, c := splat(a[p]), splat(a[p+1])
			e0, e1 = load(v[off:]).MulAdd(b, e0), load(v[off+16:]).MulAdd(b, e1)
			o0, o1 = load(v[off+stride:]).MulAdd(c, o0), load(v[off+stride+16:]).MulAdd(c, o1)
			off += 2 * stride
		}
		if p < len(a) {
			b := splat(a[p])
			e0, e1 = load(v[off:]).MulAdd(b, e0), load(v[off+16:]).MulAdd(b, e1)
		}
		store(e0.Add(o0), out[d:])
		store(e1.Add(o1), out[d+16:])
	}
	for ; d+16 <= len(out); d += 16 {
		var c0, c1, c2, c3 vec
		off, p := d, 0
		for ; p+4 <= len(a); p += 4 {
			c0 = load(v[off:]).MulAdd(splat(a[p]), c0)
			c1 = load(v[off+stride:]).MulAdd(splat(a[p+1]), c1)
			c2 = load(v[off+2*stride:]).MulAdd(splat(a[p+2]), c2)
			c3 = load(v[off+3*stride:]).MulAdd(splat(a[p+3]), c3)
			off += 4 * stride
		}
		for ; p < len(a); p++ {
			c0 = load(v[off:]).MulAdd(splat(a[p]), c0)
			off += stride
		}
		store(c0.Add(c1).Add(c2.Add(c3)), out[d:])
	}
	if d < len(out) {
		weightedSumGeneric(out[d:], a, v[d:], stride)
	}
}

// exp16 is expGeneric on 16 lanes.
func exp16(x vec) vec {
	x = x.Max(splat(expLo)).Min(splat(expHi))
	n := x.Mul(splat(log2e)).RoundToEvenScaled(0)
	r := n.MulAdd(splat(-ln2Hi), x)
	r = n.MulAdd(splat(-ln2Lo), r)
	p := splat(1.0 / 5040)
	p = p.MulAdd(r, splat(1.0/720))
	p = p.MulAdd(r, splat(1.0/120))
	p = p.MulAdd(r, splat(1.0/24))
	p = p.MulAdd(r, splat(1.0/6))
	p = p.MulAdd(r, splat(1.0/2))
	p = p.MulAdd(r, splat(1))
	p = p.MulAdd(r, splat(1))
	scale := n.ConvertToInt32().Add(archsimd.BroadcastInt32x16(127)).ShiftAllLeft(23).AsFloat32x16()
	return p.Mul(scale)
}

// sum16 adds a vector's lanes.
func sum16(v vec) float32 {
	var a [16]float32
	v.Store(&a)
	var t float32
	for _, x := range a {
		t += x
	}
	return t
}

func softmaxAVX512(s []float32) {
	mx := float32(math.Inf(-1))
	i := 0
	if len(s) >= 16 {
		m := load(s)
		for i = 16; i+16 <= len(s); i += 16 {
			m = m.Max(load(s[i:]))
		}
		var a [16]float32
		m.Store(&a)
		for _, x := range a {
			mx = max(mx, x)
		}
	}
	for _, x := range s[i:] {
		mx = max(mx, x)
	}
	var acc vec
	bm := splat(mx)
	for i = 0; i+16 <= len(s); i += 16 {
		e := exp16(load(s[i:]).Sub(bm))
		store(e, s[i:])
		acc = acc.Add(e)
	}
	sum := sum16(acc)
	for ; i < len(s); i++ {
		s[i] = expGeneric(s[i] - mx)
		sum += s[i]
	}
	inv := 1 / sum
	bi := splat(inv)
	for i = 0; i+16 <= len(s); i += 16 {
		store(load(s[i:]).Mul(bi), s[i:])
	}
	for ; i < len(s); i++ {
		s[i] *= inv
	}
}

func siluMulAVX512(out, g, u []float32) {
	i := 0
	var zero vec
	one := splat(1)
	for ; i+16 <= len(g); i += 16 {
		x := load(g[i:])
		e := exp16(zero.Sub(x))
		store(x.Div(e.Add(one)).Mul(load(u[i:])), out[i:])
	}
	siluMulGeneric(out[i:], g[i:], u[i:])
}

func rmsNormAVX512(y, x, w []float32, eps float32) {
	var acc vec
	i := 0
	for ; i+16 <= len(x); i += 16 {
		v := load(x[i:])
		acc = v.MulAdd(v, acc)
	}
	ss := sum16(acc)
	for _, v := range x[i:] {
		ss += v * v
	}
	r := float32(1 / math.Sqrt(float64(ss/float32(len(x))+eps)))
	br := splat(r)
	for i = 0; i+16 <= len(x); i += 16 {
		store(load(x[i:]).Mul(br).Mul(load(w[i:])), y[i:])
	}
	for ; i < len(x); i++ {
		y[i] = x[i] * r * w[i]
	}
}
