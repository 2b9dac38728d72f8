package kernels

import "math"

// PairsLen is the length of a [k, n] bfloat16 matrix in the pair layout of MatMulBF16Pairs: ⌈k/2⌉·n·2.
func PairsLen(k, n int) int { return (k + 1) / 2 * n * 2 }

// PairRows lays out w, [k, n] row-major in bfloat16, in the pair layout MatMulBF16Pairs reads: [⌈k/2⌉,
// n, 2], rows 2q and 2q+1 of each column side by side (row 2q first; a zero row after the last when k is
// odd), so that the two weights a product pair takes are one 32-bit word. dst has PairsLen(k, n)
// elements.
func PairRows(dst, w []uint16, k, n int) {
	if len(w) < k*n || len(dst) < PairsLen(k, n) {
		panic("kernels: PairRows: slices shorter than their shapes")
	}
	for p := range k {
		out := dst[p/2*2*n+p%2:]
		for j, v := range w[p*n : (p+1)*n] {
			out[2*j] = v
		}
	}
	if k%2 == 1 {
		out := dst[k/2*2*n+1:]
		for j := range n {
			out[2*j] = 0
		}
	}
}

// MatMulBF16Pairs sets y = x·w, or adds x·w to y when accumulate is true, with w [k, n] in bfloat16 in the
// pair layout (PairRows) and x [m, k] rounded to bfloat16 (to nearest, ties to even) as it enters: the
// products of the AVX512-BF16 instruction VDPBF16PS, which multiplies 32 pairs of bfloat16s and adds them
// to 16 float32 sums in one instruction, twice the multiply-adds of a float32 one. For each pair of rows
// (2q, 2q+1) in order, y[i, j] += x[i, 2q+1]·w[2q+1, j], then += x[i, 2q]·w[2q, j]: each product is exact
// (bfloat16 significands are 8 bits), each sum rounded to float32. MatMulBF16 takes x as it is, so this is
// a different function of x: it is what llama.cpp and GPUs compute from bfloat16 weights.
//
// Every row's sums are the same whatever m is, so a row's result does not depend on the rows beside it.
// With AVX-512 kernels on a CPU with AVX512-BF16 (PairsFast) the instruction computes them; elsewhere Go
// does, the same sums (the instruction flushes subnormal inputs and results to zero, Go does not: they
// differ there only).
//
// y's rows are ldy ≥ n apart, so that a product can fill a block of columns of a wider matrix in place.
func MatMulBF16Pairs(y []float32, ldy int, x []float32, w []uint16, m, k, n int, accumulate bool) {
	if len(x) < m*k || len(w) < PairsLen(k, n) || ldy < n || m > 0 && len(y) < (m-1)*ldy+n {
		panic("kernels: MatMulBF16Pairs: slices shorter than their shapes")
	}
	active.matMulBF16Pairs(y, ldy, x, w, m, k, n, accumulate)
}

// roundBF16 returns v rounded to the nearest bfloat16 (ties to even), as the high 16 bits of a float32;
// NaNs stay NaNs.
func roundBF16(v float32) uint16 {
	b := math.Float32bits(v)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// roundPairsGeneric sets dst[q] to the bfloat16s of src[2q] (low half) and src[2q+1] (high half), a zero
// high half after an odd last element.
func roundPairsGeneric(dst []uint32, src []float32) {
	for q := range dst {
		lo, hi := roundBF16(src[2*q]), uint16(0)
		if 2*q+1 < len(src) {
			hi = roundBF16(src[2*q+1])
		}
		dst[q] = uint32(hi)<<16 | uint32(lo)
	}
}

// matMulBF16PairsGeneric is MatMulBF16Pairs in Go over the columns [j0, j1): a row at a time, the pair rows
// of w streamed past it in order.
func matMulBF16PairsGeneric(y []float32, ldy int, x []float32, w []uint16, m, k, n, j0, j1 int, accumulate bool) {
	kp := (k + 1) / 2
	xp := make([]uint32, kp)
	for i := range m {
		roundPairsGeneric(xp, x[i*k:(i+1)*k])
		yi := y[i*ldy+j0 : i*ldy+j1]
		if !accumulate {
			clear(yi)
		}
		for q, pair := range xp {
			a0, a1 := math.Float32frombits(pair<<16), math.Float32frombits(pair&0xffff0000)
			row := w[q*2*n+2*j0 : q*2*n+2*j1]
			for j := range yi {
				w0, w1 := math.Float32frombits(uint32(row[2*j])<<16), math.Float32frombits(uint32(row[2*j+1])<<16)
				yi[j] = yi[j] + a1*w1 + a0*w0
			}
		}
	}
}

func matMulBF16PairsAll(y []float32, ldy int, x []float32, w []uint16, m, k, n int, accumulate bool) {
	matMulBF16PairsGeneric(y, ldy, x, w, m, k, n, 0, n, accumulate)
}
