//go:build goexperiment.simd && amd64

package kernels

import (
	"simd/archsimd"
	"sync"

	"golang.org/x/sys/cpu"
)

// pairsBF16 reports whether this CPU has AVX512-BF16's VDPBF16PS, which matMulBF16PairsAVX512 runs.
var pairsBF16 = cpu.X86.HasAVX512BF16

// matMulBF16PairsAVX512 is matMulAVX512's panels and tiles over bfloat16 pairs, x's rows rounded to pairs
// once (roundPairs): a pair row of a panel is 32 columns of two bfloat16s, 128 bytes like a float32 row, and
// holds twice the multiply-adds. A single row streams w's pair rows past blocks of y (rowPairsAVX512), as
// rowAVX512 streams w's rows. Without VDPBF16PS it runs matMulBF16PairsGeneric.
func matMulBF16PairsAVX512(y []float32, ldy int, x []float32, w []uint16, m, k, n int, accumulate bool) {
	full := n &^ 31
	if !pairsBF16 || full == 0 {
		matMulBF16PairsGeneric(y, ldy, x, w, m, k, n, 0, n, accumulate)
		return
	}
	buf := pairRows.Get().(*[]uint32)
	defer pairRows.Put(buf)
	kp := (k + 1) / 2
	*buf = grownU32(*buf, m*kp)
	pp := pairProduct{y: y, ldy: ldy, xp: *buf, kp: kp, w: w, n: n}
	for i := range m {
		roundPairs(pp.xp[i*kp:(i+1)*kp], x[i*k:(i+1)*k])
	}
	if m == 1 {
		pp.row(full, accumulate)
	} else {
		pp.panels(m, full, accumulate)
	}
	if full < n {
		matMulBF16PairsGeneric(y, ldy, x, w, m, k, n, full, n, accumulate)
	}
}

// pairRows holds matMulBF16PairsAVX512's rows of x rounded to pairs.
var pairRows = sync.Pool{New: func() any { return new([]uint32) }}

func grownU32(s []uint32, n int) []uint32 {
	if cap(s) < n {
		return make([]uint32, n)
	}
	return s[:n]
}

// pairProduct is a product of matMulBF16PairsAVX512: y's rows ldy apart, x's rows rounded to kp pairs
// each (xp), w in pair layout with n columns.
type pairProduct struct {
	y   []float32
	ldy int
	xp  []uint32
	kp  int
	w   []uint16
	n   int
}

// panels runs the tiles over the columns [0, full) in panels of 32, kBlock pair rows at a time (32 KB of w,
// in L1), 8 rows of x at a time, then 4, then 1.
func (pp pairProduct) panels(m, full int, accumulate bool) {
	for j := 0; j < full; j += 32 {
		for q0 := 0; q0 < pp.kp || q0 == 0; q0 += kBlock {
			q1, acc := min(q0+kBlock, pp.kp), accumulate || q0 > 0
			i := 0
			for ; i+8 <= m; i += 8 {
				pp.tile(i, j, q0, q1-q0, acc, 8)
			}
			for ; i+4 <= m; i += 4 {
				pp.tile(i, j, q0, q1-q0, acc, 4)
			}
			for ; i < m; i++ {
				pp.tile(i, j, q0, q1-q0, acc, 1)
			}
		}
	}
}

// tile runs the assembly tile of rows i..i+rows-1 (8, 4 or 1) at column j over count pair rows from q0,
// its bounds checked here once.
func (pp pairProduct) tile(i, j, q0, count int, accumulate bool, rows int) {
	o, ldy := i*pp.ldy+j, pp.ldy
	_ = pp.y[o+(rows-1)*ldy+31]
	if count == 0 {
		if !accumulate {
			clearTile(pp.y, o, ldy, rows, 32)
		}
		return
	}
	wp := 2 * (q0*pp.n + j)
	_ = pp.w[wp+2*((count-1)*pp.n+31)+1]
	_ = pp.xp[(i+rows-1)*pp.kp+q0+count-1]
	y, x, w := &pp.y[o], &pp.xp[i*pp.kp+q0], &pp.w[wp]
	switch rows {
	case 8:
		dot8x32AVX512(y, ldy, x, pp.kp, w, pp.n, count, accumulate)
	case 4:
		dot4x32AVX512(y, ldy, x, pp.kp, w, pp.n, count, accumulate)
	default:
		dot1x32AVX512(y, x, w, pp.n, count, accumulate)
	}
}

// row is the single-row product over the columns [0, full), in blocks of rowBlock columns of y that stay in
// L1 while every pair row of w's block streams past them, in order.
func (pp pairProduct) row(full int, accumulate bool) {
	if pp.kp == 0 {
		if !accumulate {
			clear(pp.y[:full])
		}
		return
	}
	_ = pp.w[2*((pp.kp-1)*pp.n+full-1)+1]
	for b0 := 0; b0 < full; b0 += rowBlock {
		yb := pp.y[b0:min(b0+rowBlock, full)]
		if !accumulate {
			clear(yb)
		}
		rowPairsAVX512(&yb[0], len(yb), &pp.xp[0], &pp.w[2*b0], pp.n, pp.kp)
	}
}

// roundPairs is roundPairsGeneric 32 elements at a time: each rounded as roundBF16 rounds (NaNs aside),
// and the high halves of the 32 words gathered into 16.
func roundPairs(dst []uint32, src []float32) {
	half, one := archsimd.BroadcastUint32x16(0x7fff), archsimd.BroadcastUint32x16(1)
	for len(src) >= 32 && len(dst) >= 16 {
		a := archsimd.LoadFloat32x16((*[16]float32)(src[:16])).AsUint32x16()
		b := archsimd.LoadFloat32x16((*[16]float32)(src[16:32])).AsUint32x16()
		a = a.Add(half).Add(a.ShiftAllRight(16).And(one))
		b = b.Add(half).Add(b.ShiftAllRight(16).And(one))
		a.AsUint16x32().ConcatPermute(b.AsUint16x32(), highHalves).AsUint32x16().Store((*[16]uint32)(dst[:16]))
		src, dst = src[32:], dst[16:]
	}
	roundPairsGeneric(dst, src)
}

// highHalves picks the odd 16-bit elements of two vectors of 32, in order.
var highHalves = func() archsimd.Uint16x32 {
	var idx [32]uint16
	for i := range idx {
		idx[i] = uint16(2*i + 1)
	}
	return archsimd.LoadUint16x32(&idx)
}()

//go:noescape
func dot8x32AVX512(y *float32, ldy int, x *uint32, kp int, w *uint16, wn int, count int, accumulate bool)

//go:noescape
func dot4x32AVX512(y *float32, ldy int, x *uint32, kp int, w *uint16, wn int, count int, accumulate bool)

//go:noescape
func dot1x32AVX512(y *float32, x *uint32, w *uint16, wn int, count int, accumulate bool)

//go:noescape
func rowPairsAVX512(y *float32, cols int, x *uint32, w *uint16, wn int, count int)
