//go:build goexperiment.simd && amd64

package kernels

import (
	"math"
	"os"
	"simd/archsimd"
	"slices"
	"strings"
)

var avx2 = impl{"AVX2", matMulAVX2, matMulBF16AVX2, matMulBF16PairsAll, weightedSumAVX2, softmaxAVX2, siluMulAVX2, rmsNormAVX2}

// haveAVX2 reports AVX2 and FMA. The gasp binary runs with GODEBUG=cpu.fma=off (pkg/cli/simd.go), which
// hides FMA from archsimd.X86 (and x/sys/cpu) though the instructions still run; then AVX2 stands for both,
// as on every x86 CPU that has AVX2 (Intel since Haswell, AMD since Excavator).
var haveAVX2 = archsimd.X86.AVX2() && (archsimd.X86.FMA() || fmaHidden())

func fmaHidden() bool {
	return slices.Contains(strings.Split(os.Getenv("GODEBUG"), ","), "cpu.fma=off")
}

type vec8 = archsimd.Float32x8

func load8(s []float32) vec8     { return archsimd.LoadFloat32x8((*[8]float32)(s[:8])) }
func store8(v vec8, s []float32) { v.Store((*[8]float32)(s[:8])) }
func splat8(a float32) vec8      { return archsimd.BroadcastFloat32x8(a) }

// matMulAVX2 is matMulAVX512 with panels of 16 columns (2 registers of 8) and tiles of 6 rows, then 4, then 1: a
// single row streams w's rows past blocks of y (rowAVX2), more rows run the tiles over kBlockAVX2 rows of a
// panel at a time (32 KB, in L1).
func matMulAVX2(y, x, w []float32, m, k, n, j0, j1 int, accumulate bool) {
	full := j0 + (j1-j0)&^15
	if m == 1 {
		rowAVX2(y, x, w, k, n, j0, full, accumulate)
	} else {
		for j := j0; j < full; j += 16 {
			for p0 := 0; p0 < k || p0 == 0; p0 += kBlockAVX2 {
				p1, acc := min(p0+kBlockAVX2, k), accumulate || p0 > 0
				panelTiles16(y, x, w, p0*n+j, n, j, m, k, n, p0, p1, acc)
			}
		}
	}
	if full < j1 {
		matMulGeneric(y, x, w, m, k, n, full, j1, accumulate)
	}
}

// panelTiles16 is panelTiles over panels of 16 columns: 6 rows of x at a time, then 4, then 1.
func panelTiles16(y, x, w []float32, wp, wn, j, m, k, n, p0, p1 int, accumulate bool) {
	i := 0
	for ; i+6 <= m; i += 6 {
		tile6x16(y, x, w, wp, wn, i, j, k, n, p0, p1, accumulate)
	}
	for ; i+4 <= m; i += 4 {
		tile4x16(y, x, w, wp, wn, i, j, k, n, p0, p1, accumulate)
	}
	for ; i < m; i++ {
		tile1x16(y, x, w, wp, wn, i, j, k, n, p0, p1, accumulate)
	}
}

// kBlockAVX2 is kBlock for panels of 16 columns: 512 rows of 64 bytes.
const kBlockAVX2 = 512

// rowAVX2 computes the columns [j0, j1) (a multiple of 16 wide) of a single row y (+)= x·w, reading each row
// of w in one run (see rowAVX512). Storing y between rows changes no bit of tile1x16's sums.
func rowAVX2(y, x, w []float32, k, n, j0, j1 int, accumulate bool) {
	rowBlocks8(y, x, w, k, n, j0, j1, accumulate, func(y, row []float32, s vec8) {
		for j := 0; j < len(y); j += 16 {
			store8(load8(row[j:]).MulAdd(s, load8(y[j:])), y[j:])
			store8(load8(row[j+8:]).MulAdd(s, load8(y[j+8:])), y[j+8:])
		}
	})
}

// rowBlocks8 is rowBlocks with vectors of 8: fma adds s·(a row of w's block) to y's block, once a row.
func rowBlocks8[W float32 | uint16](y, x []float32, w []W, k, n, j0, j1 int, accumulate bool, fma func(y []float32, row []W, s vec8)) {
	for b0 := j0; b0 < j1; b0 += rowBlock {
		yb := y[b0:min(b0+rowBlock, j1)]
		if !accumulate {
			clear(yb)
		}
		for p, a := range x[:k] {
			fma(yb, w[p*n+b0:p*n+b0+len(yb)], splat8(a))
		}
	}
}

// tile4x16 adds the products of rows i..i+3 of x and the panel of w at column j over p0 ≤ p < p1 to y (to 0
// when accumulate is false). The panel's row p0 starts at w[wp] and its rows are wn apart: w itself (wp =
// p0·n+j, wn = n), or a copy of the panel (bfloat16 weights widened, wn = 16).
func tile4x16(y, x, w []float32, wp, wn, i, j, k, n, p0, p1 int, accumulate bool) {
	if o, count := tileBounds(y, x, w, wp, wn, i, j, k, n, p0, p1, 4, 16, accumulate); count > 0 {
		tile4x16AVX2(&y[o], n, &x[i*k+p0], k, &w[wp], wn, count, accumulate)
	}
}

// tile4x16AVX2 is tile4x16's loop, in tile_amd64.s (see tile4x32AVX512).
//
//go:noescape
func tile4x16AVX2(y *float32, n int, x *float32, k int, w *float32, wn int, count int, accumulate bool)

// tile6x16 is tile4x16 for the rows i..i+5 of x (12 accumulators: tile6x16AVX2).
func tile6x16(y, x, w []float32, wp, wn, i, j, k, n, p0, p1 int, accumulate bool) {
	if o, count := tileBounds(y, x, w, wp, wn, i, j, k, n, p0, p1, 6, 16, accumulate); count > 0 {
		tile6x16AVX2(&y[o], n, &x[i*k+p0], k, &w[wp], wn, count, accumulate)
	}
}

//go:noescape
func tile6x16AVX2(y *float32, n int, x *float32, k int, w *float32, wn int, count int, accumulate bool)

func tile1x16(y, x, w []float32, wp, wn, i, j, k, n, p0, p1 int, accumulate bool) {
	o := i*n + j
	var c0, c1 vec8
	if accumulate {
		c0, c1 = load8(y[o:]), load8(y[o+8:])
	}
	for _, a := range x[i*k+p0 : i*k+p1] {
		b := splat8(a)
		c0 = archsimd.LoadFloat32x8((*[8]float32)(w[wp:wp+8])).MulAdd(b, c0)
		c1 = archsimd.LoadFloat32x8((*[8]float32)(w[wp+8:wp+16])).MulAdd(b, c1)
		wp += wn
	}
	store8(c0, y[o:])
	store8(c1, y[o+8:])
}

// weightedSumAVX2 is weightedSumAVX512 on 8 lanes: 32 outputs at a time, then 16, then 8.
func weightedSumAVX2(out, a, v []float32, stride int) {
	d := 0
	for ; d+32 <= len(out); d += 32 {
		var c0, c1, c2, c3 vec8
		off := d
		for _, c := range a {
			b := splat8(c)
			row := v[off : off+32]
			c0, c1 = load8(row).MulAdd(b, c0), load8(row[8:]).MulAdd(b, c1)
			c2, c3 = load8(row[16:]).MulAdd(b, c2), load8(row[24:]).MulAdd(b, c3)
			off += stride
		}
		store8(c0, out[d:])
		store8(c1, out[d+8:])
		store8(c2, out[d+16:])
		store8(c3, out[d+24:])
	}
	for ; d+16 <= len(out); d += 16 {
		var e0, e1, o0, o1 vec8
		off, p := d, 0
		for ; p+2 <= len(a); p += 2 {
			b, c := splat8(a[p]), splat8(a[p+1])
			e0, e1 = load8(v[off:]).MulAdd(b, e0), load8(v[off+8:]).MulAdd(b, e1)
			o0, o1 = load8(v[off+stride:]).MulAdd(c, o0), load8(v[off+stride+8:]).MulAdd(c, o1)
			off += 2 * stride
		}
		if p < len(a) {
			b := splat8(a[p])
			e0, e1 = load8(v[off:]).MulAdd(b, e0), load8(v[off+8:]).MulAdd(b, e1)
		}
		store8(e0.Add(o0), out[d:])
		store8(e1.Add(o1), out[d+8:])
	}
	for ; d+8 <= len(out); d += 8 {
		var c0, c1, c2, c3 vec8
		off, p := d, 0
		for ; p+4 <= len(a); p += 4 {
			c0 = load8(v[off:]).MulAdd(splat8(a[p]), c0)
			c1 = load8(v[off+stride:]).MulAdd(splat8(a[p+1]), c1)
			c2 = load8(v[off+2*stride:]).MulAdd(splat8(a[p+2]), c2)
			c3 = load8(v[off+3*stride:]).MulAdd(splat8(a[p+3]), c3)
			off += 4 * stride
		}
		for ; p < len(a); p++ {
			c0 = load8(v[off:]).MulAdd(splat8(a[p]), c0)
			off += stride
		}
		store8(c0.Add(c1).Add(c2.Add(c3)), out[d:])
	}
	if d < len(out) {
		weightedSumGeneric(out[d:], a, v[d:], stride)
	}
}

// exp8 is expGeneric on 8 lanes.
func exp8(x vec8) vec8 {
	x = x.Max(splat8(expLo)).Min(splat8(expHi))
	n := x.Mul(splat8(log2e)).RoundToEven()
	r := n.MulAdd(splat8(-ln2Hi), x)
	r = n.MulAdd(splat8(-ln2Lo), r)
	p := splat8(1.0 / 5040)
	p = p.MulAdd(r, splat8(1.0/720))
	p = p.MulAdd(r, splat8(1.0/120))
	p = p.MulAdd(r, splat8(1.0/24))
	p = p.MulAdd(r, splat8(1.0/6))
	p = p.MulAdd(r, splat8(1.0/2))
	p = p.MulAdd(r, splat8(1))
	p = p.MulAdd(r, splat8(1))
	scale := n.ConvertToInt32().Add(archsimd.BroadcastInt32x8(127)).ShiftAllLeft(23).AsFloat32x8()
	return p.Mul(scale)
}

func sum8(v vec8) float32 {
	var a [8]float32
	v.Store(&a)
	return a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7]
}

func softmaxAVX2(s []float32) {
	mx := float32(math.Inf(-1))
	i := 0
	if len(s) >= 8 {
		m := load8(s)
		for i = 8; i+8 <= len(s); i += 8 {
			m = m.Max(load8(s[i:]))
		}
		var a [8]float32
		m.Store(&a)
		for _, x := range a {
			mx = max(mx, x)
		}
	}
	for _, x := range s[i:] {
		mx = max(mx, x)
	}
	var acc vec8
	bm := splat8(mx)
	for i = 0; i+8 <= len(s); i += 8 {
		e := exp8(load8(s[i:]).Sub(bm))
		store8(e, s[i:])
		acc = acc.Add(e)
	}
	sum := sum8(acc)
	for ; i < len(s); i++ {
		s[i] = expGeneric(s[i] - mx)
		sum += s[i]
	}
	bi := splat8(1 / sum)
	for i = 0; i+8 <= len(s); i += 8 {
		store8(load8(s[i:]).Mul(bi), s[i:])
	}
	for ; i < len(s); i++ {
		s[i] *= 1 / sum
	}
}

func siluMulAVX2(out, g, u []float32) {
	i := 0
	var zero vec8
	one := splat8(1)
	for ; i+8 <= len(g); i += 8 {
		x := load8(g[i:])
		store8(x.Div(exp8(zero.Sub(x)).Add(one)).Mul(load8(u[i:])), out[i:])
	}
	siluMulGeneric(out[i:], g[i:], u[i:])
}

func rmsNormAVX2(y, x, w []float32, eps float32) {
	var acc vec8
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := load8(x[i:])
		acc = v.MulAdd(v, acc)
	}
	ss := sum8(acc)
	for _, v := range x[i:] {
		ss += v * v
	}
	r := float32(1 / math.Sqrt(float64(ss/float32(len(x))+eps)))
	br := splat8(r)
	for i = 0; i+8 <= len(x); i += 8 {
		store8(load8(x[i:]).Mul(br).Mul(load8(w[i:])), y[i:])
	}
	for ; i < len(x); i++ {
		y[i] = x[i] * r * w[i]
	}
}
