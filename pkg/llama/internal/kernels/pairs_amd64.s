//go:build goexperiment.simd && amd64

#include "textflag.h"

// func dot4x32AVX512(y *float32, ldy int, x *uint32, kp int, w *uint16, wn int, count int, accumulate bool)
//
// tile4x32AVX512 (tile_amd64.s) over bfloat16 pairs: for count pair rows of w's panel (wn 32-bit words
// apart, each 32 columns of two bfloat16s), adds x's pair (a 32-bit word of two bfloat16s) times the
// column's pair to the accumulators of rows r = 0..3 with VDPBF16PS, which the Go assembler does not know:
// its bytes are written out (EVEX.512.F3.0F38.W0 52 /r, the register form; the comment after each gives
// it in Go's operand order). x's rows are kp words apart, y's ldy floats.
TEXT ·dot4x32AVX512(SB), NOSPLIT, $0-57
	MOVQ y+0(FP), DI
	MOVQ ldy+8(FP), R8
	SHLQ $2, R8              // y's row stride in bytes
	MOVQ x+16(FP), SI
	MOVQ kp+24(FP), R9
	SHLQ $2, R9              // x's row stride in bytes (kp words)
	MOVQ w+32(FP), DX
	MOVQ wn+40(FP), R10
	SHLQ $2, R10             // w's pair-row stride in bytes
	MOVQ count+48(FP), CX
	LEAQ (DI)(R8*2), R11     // y's row 2
	LEAQ (SI)(R9*2), R12     // x's row 2
	CMPB accumulate+56(FP), $0
	JEQ  zero4
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS (DI)(R8*1), Z2
	VMOVUPS 64(DI)(R8*1), Z3
	VMOVUPS (R11), Z4
	VMOVUPS 64(R11), Z5
	VMOVUPS (R11)(R8*1), Z6
	VMOVUPS 64(R11)(R8*1), Z7
	JMP  check4

zero4:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7

check4:
	TESTQ CX, CX
	JEQ   done4

loop4:
	VMOVUPS      (DX), Z8
	VMOVUPS      64(DX), Z9
	VPBROADCASTD (SI), Z10
	BYTE $0x62; BYTE $0xd2; BYTE $0x2e; BYTE $0x48; BYTE $0x52; BYTE $0xc0  // VDPBF16PS Z8, Z10, Z0
	BYTE $0x62; BYTE $0xd2; BYTE $0x2e; BYTE $0x48; BYTE $0x52; BYTE $0xc9  // VDPBF16PS Z9, Z10, Z1
	VPBROADCASTD (SI)(R9*1), Z11
	BYTE $0x62; BYTE $0xd2; BYTE $0x26; BYTE $0x48; BYTE $0x52; BYTE $0xd0  // VDPBF16PS Z8, Z11, Z2
	BYTE $0x62; BYTE $0xd2; BYTE $0x26; BYTE $0x48; BYTE $0x52; BYTE $0xd9  // VDPBF16PS Z9, Z11, Z3
	VPBROADCASTD (R12), Z12
	BYTE $0x62; BYTE $0xd2; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xe0  // VDPBF16PS Z8, Z12, Z4
	BYTE $0x62; BYTE $0xd2; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xe9  // VDPBF16PS Z9, Z12, Z5
	VPBROADCASTD (R12)(R9*1), Z13
	BYTE $0x62; BYTE $0xd2; BYTE $0x16; BYTE $0x48; BYTE $0x52; BYTE $0xf0  // VDPBF16PS Z8, Z13, Z6
	BYTE $0x62; BYTE $0xd2; BYTE $0x16; BYTE $0x48; BYTE $0x52; BYTE $0xf9  // VDPBF16PS Z9, Z13, Z7
	ADDQ         $4, SI
	ADDQ         $4, R12
	ADDQ         R10, DX
	DECQ         CX
	JNZ          loop4

done4:
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, (DI)(R8*1)
	VMOVUPS Z3, 64(DI)(R8*1)
	VMOVUPS Z4, (R11)
	VMOVUPS Z5, 64(R11)
	VMOVUPS Z6, (R11)(R8*1)
	VMOVUPS Z7, 64(R11)(R8*1)
	VZEROUPPER
	RET

// func dot8x32AVX512(y *float32, ldy int, x *uint32, kp int, w *uint16, wn int, count int, accumulate bool)
//
// dot4x32AVX512 for 8 rows of x: 16 accumulators, 2 loads of w and 8 broadcasts of x per 16 VDPBF16PS.
TEXT ·dot8x32AVX512(SB), NOSPLIT, $0-57
	MOVQ y+0(FP), DI
	MOVQ ldy+8(FP), R8
	SHLQ $2, R8              // y's row stride in bytes
	MOVQ x+16(FP), SI
	MOVQ kp+24(FP), R9
	SHLQ $2, R9              // x's row stride in bytes (kp words)
	MOVQ w+32(FP), DX
	MOVQ wn+40(FP), R10
	SHLQ $2, R10             // w's pair-row stride in bytes
	MOVQ count+48(FP), CX
	LEAQ (DI)(R8*2), R11
	ADDQ R8, R11             // y's row 3
	LEAQ (DI)(R8*4), AX      // y's row 4
	LEAQ (AX)(R8*2), R13
	ADDQ R8, R13             // y's row 7
	CMPB accumulate+56(FP), $0
	JEQ  zero8d
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS (DI)(R8*1), Z2
	VMOVUPS 64(DI)(R8*1), Z3
	VMOVUPS (DI)(R8*2), Z4
	VMOVUPS 64(DI)(R8*2), Z5
	VMOVUPS (R11), Z6
	VMOVUPS 64(R11), Z7
	VMOVUPS (AX), Z8
	VMOVUPS 64(AX), Z9
	VMOVUPS (AX)(R8*1), Z10
	VMOVUPS 64(AX)(R8*1), Z11
	VMOVUPS (AX)(R8*2), Z12
	VMOVUPS 64(AX)(R8*2), Z13
	VMOVUPS (R13), Z14
	VMOVUPS 64(R13), Z15
	JMP  start8d

zero8d:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15

start8d:
	LEAQ (SI)(R9*2), BX
	ADDQ R9, BX              // x's row 3
	LEAQ (SI)(R9*4), R12     // x's row 4
	TESTQ CX, CX
	JEQ   done8d
	LEAQ (R12)(R9*2), AX
	ADDQ R9, AX              // x's row 7

loop8d:
	VMOVUPS      (DX), Z16
	VMOVUPS      64(DX), Z17
	VPBROADCASTD (SI), Z18
	BYTE $0x62; BYTE $0xb2; BYTE $0x6e; BYTE $0x40; BYTE $0x52; BYTE $0xc0  // VDPBF16PS Z16, Z18, Z0
	BYTE $0x62; BYTE $0xb2; BYTE $0x6e; BYTE $0x40; BYTE $0x52; BYTE $0xc9  // VDPBF16PS Z17, Z18, Z1
	VPBROADCASTD (SI)(R9*1), Z19
	BYTE $0x62; BYTE $0xb2; BYTE $0x66; BYTE $0x40; BYTE $0x52; BYTE $0xd0  // VDPBF16PS Z16, Z19, Z2
	BYTE $0x62; BYTE $0xb2; BYTE $0x66; BYTE $0x40; BYTE $0x52; BYTE $0xd9  // VDPBF16PS Z17, Z19, Z3
	VPBROADCASTD (SI)(R9*2), Z20
	BYTE $0x62; BYTE $0xb2; BYTE $0x5e; BYTE $0x40; BYTE $0x52; BYTE $0xe0  // VDPBF16PS Z16, Z20, Z4
	BYTE $0x62; BYTE $0xb2; BYTE $0x5e; BYTE $0x40; BYTE $0x52; BYTE $0xe9  // VDPBF16PS Z17, Z20, Z5
	VPBROADCASTD (BX), Z21
	BYTE $0x62; BYTE $0xb2; BYTE $0x56; BYTE $0x40; BYTE $0x52; BYTE $0xf0  // VDPBF16PS Z16, Z21, Z6
	BYTE $0x62; BYTE $0xb2; BYTE $0x56; BYTE $0x40; BYTE $0x52; BYTE $0xf9  // VDPBF16PS Z17, Z21, Z7
	VPBROADCASTD (R12), Z22
	BYTE $0x62; BYTE $0x32; BYTE $0x4e; BYTE $0x40; BYTE $0x52; BYTE $0xc0  // VDPBF16PS Z16, Z22, Z8
	BYTE $0x62; BYTE $0x32; BYTE $0x4e; BYTE $0x40; BYTE $0x52; BYTE $0xc9  // VDPBF16PS Z17, Z22, Z9
	VPBROADCASTD (R12)(R9*1), Z23
	BYTE $0x62; BYTE $0x32; BYTE $0x46; BYTE $0x40; BYTE $0x52; BYTE $0xd0  // VDPBF16PS Z16, Z23, Z10
	BYTE $0x62; BYTE $0x32; BYTE $0x46; BYTE $0x40; BYTE $0x52; BYTE $0xd9  // VDPBF16PS Z17, Z23, Z11
	VPBROADCASTD (R12)(R9*2), Z24
	BYTE $0x62; BYTE $0x32; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xe0  // VDPBF16PS Z16, Z24, Z12
	BYTE $0x62; BYTE $0x32; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xe9  // VDPBF16PS Z17, Z24, Z13
	VPBROADCASTD (AX), Z25
	BYTE $0x62; BYTE $0x32; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xf0  // VDPBF16PS Z16, Z25, Z14
	BYTE $0x62; BYTE $0x32; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xf9  // VDPBF16PS Z17, Z25, Z15
	ADDQ         $4, SI
	ADDQ         $4, BX
	ADDQ         $4, R12
	ADDQ         $4, AX
	ADDQ         R10, DX
	DECQ         CX
	JNZ          loop8d

done8d:
	LEAQ (DI)(R8*4), AX      // y's row 4 again
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, (DI)(R8*1)
	VMOVUPS Z3, 64(DI)(R8*1)
	VMOVUPS Z4, (DI)(R8*2)
	VMOVUPS Z5, 64(DI)(R8*2)
	VMOVUPS Z6, (R11)
	VMOVUPS Z7, 64(R11)
	VMOVUPS Z8, (AX)
	VMOVUPS Z9, 64(AX)
	VMOVUPS Z10, (AX)(R8*1)
	VMOVUPS Z11, 64(AX)(R8*1)
	VMOVUPS Z12, (AX)(R8*2)
	VMOVUPS Z13, 64(AX)(R8*2)
	VMOVUPS Z14, (R13)
	VMOVUPS Z15, 64(R13)
	VZEROUPPER
	RET

// func dot1x32AVX512(y *float32, x *uint32, w *uint16, wn int, count int, accumulate bool)
//
// dot4x32AVX512 for a single row of x (the rows a batch leaves over after tiles of 8 and 4).
TEXT ·dot1x32AVX512(SB), NOSPLIT, $0-41
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ w+16(FP), DX
	MOVQ wn+24(FP), R10
	SHLQ $2, R10             // w's pair-row stride in bytes
	MOVQ count+32(FP), CX
	CMPB accumulate+40(FP), $0
	JEQ  zero1
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	JMP  check1

zero1:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1

check1:
	TESTQ CX, CX
	JEQ   done1

loop1:
	VMOVUPS      (DX), Z16
	VMOVUPS      64(DX), Z17
	VPBROADCASTD (SI), Z18
	BYTE $0x62; BYTE $0xb2; BYTE $0x6e; BYTE $0x40; BYTE $0x52; BYTE $0xc0  // VDPBF16PS Z16, Z18, Z0
	BYTE $0x62; BYTE $0xb2; BYTE $0x6e; BYTE $0x40; BYTE $0x52; BYTE $0xc9  // VDPBF16PS Z17, Z18, Z1
	ADDQ         $4, SI
	ADDQ         R10, DX
	DECQ         CX
	JNZ          loop1

done1:
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VZEROUPPER
	RET

// func rowPairsAVX512(y *float32, cols int, x *uint32, w *uint16, wn int, count int)
//
// A single row's product over a block of cols columns (a multiple of 32) of y, kept in L1: for each of
// count pairs in order, y[0:cols] gets x's pair times the pair row of w (cols words from w, the next wn
// words on), one VDPBF16PS per 16 columns, so that w is read in one run. Each column's sums are
// dot1x32AVX512's, in the same order through y's float32 values.
TEXT ·rowPairsAVX512(SB), NOSPLIT, $0-48
	MOVQ y+0(FP), DI
	MOVQ cols+8(FP), R8
	SHRQ $5, R8              // panels of 32 columns
	MOVQ x+16(FP), SI
	MOVQ w+24(FP), DX
	MOVQ wn+32(FP), R10
	SHLQ $2, R10             // w's pair-row stride in bytes
	MOVQ count+40(FP), CX
	TESTQ CX, CX
	JEQ   doneRow
	TESTQ R8, R8
	JEQ   doneRow

pair:
	VPBROADCASTD (SI), Z18
	MOVQ DI, AX
	MOVQ DX, BX
	MOVQ R8, R9

panel:
	VMOVUPS      (AX), Z0
	VMOVUPS      64(AX), Z1
	VMOVUPS      (BX), Z16
	VMOVUPS      64(BX), Z17
	BYTE $0x62; BYTE $0xb2; BYTE $0x6e; BYTE $0x40; BYTE $0x52; BYTE $0xc0  // VDPBF16PS Z16, Z18, Z0
	BYTE $0x62; BYTE $0xb2; BYTE $0x6e; BYTE $0x40; BYTE $0x52; BYTE $0xc9  // VDPBF16PS Z17, Z18, Z1
	VMOVUPS      Z0, (AX)
	VMOVUPS      Z1, 64(AX)
	ADDQ         $128, AX
	ADDQ         $128, BX
	DECQ         R9
	JNZ          panel
	ADDQ         $4, SI
	ADDQ         R10, DX
	DECQ         CX
	JNZ          pair

doneRow:
	VZEROUPPER
	RET

