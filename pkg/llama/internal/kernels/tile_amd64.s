//go:build goexperiment.simd && amd64

#include "textflag.h"

// func tile4x32AVX512(y *float32, n int, x *float32, k int, w *float32, wn int, count int, accumulate bool)
//
// tile4x32's loop (avx512.go): for count rows of w's panel, wn apart, adds x[r][p]·w[p][0:32] to the
// accumulators of rows r = 0..3, which start at y's rows (n apart) or 0 and end there. x's rows are k apart.
// Each accumulator is the destination of its own fused multiply-add (VFMADD231PS), so that the loop is 8
// multiply-adds, 2 loads of w and 4 broadcasts of x with nothing else but the pointers' steps.
TEXT ·tile4x32AVX512(SB), NOSPLIT, $0-57
	MOVQ y+0(FP), DI
	MOVQ n+8(FP), R8
	SHLQ $2, R8              // y's row stride in bytes
	MOVQ x+16(FP), SI
	MOVQ k+24(FP), R9
	SHLQ $2, R9              // x's row stride in bytes
	MOVQ w+32(FP), DX
	MOVQ wn+40(FP), R10
	SHLQ $2, R10             // w's row stride in bytes
	MOVQ count+48(FP), CX
	LEAQ (DI)(R8*2), R11     // y's row 2
	LEAQ (SI)(R9*2), R12     // x's row 2
	CMPB accumulate+56(FP), $0
	JEQ  zero
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS (DI)(R8*1), Z2
	VMOVUPS 64(DI)(R8*1), Z3
	VMOVUPS (R11), Z4
	VMOVUPS 64(R11), Z5
	VMOVUPS (R11)(R8*1), Z6
	VMOVUPS 64(R11)(R8*1), Z7
	JMP  check

zero:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7

check:
	TESTQ CX, CX
	JEQ   done

loop:
	VMOVUPS      (DX), Z8
	VMOVUPS      64(DX), Z9
	VBROADCASTSS (SI), Z10
	VFMADD231PS  Z8, Z10, Z0
	VFMADD231PS  Z9, Z10, Z1
	VBROADCASTSS (SI)(R9*1), Z11
	VFMADD231PS  Z8, Z11, Z2
	VFMADD231PS  Z9, Z11, Z3
	VBROADCASTSS (R12), Z12
	VFMADD231PS  Z8, Z12, Z4
	VFMADD231PS  Z9, Z12, Z5
	VBROADCASTSS (R12)(R9*1), Z13
	VFMADD231PS  Z8, Z13, Z6
	VFMADD231PS  Z9, Z13, Z7
	ADDQ         $4, SI
	ADDQ         $4, R12
	ADDQ         R10, DX
	DECQ         CX
	JNZ          loop

done:
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

// func tile4x16AVX2(y *float32, n int, x *float32, k int, w *float32, wn int, count int, accumulate bool)
//
// tile4x16's loop (avx2.go): tile4x32AVX512 with vectors of 8.
TEXT ·tile4x16AVX2(SB), NOSPLIT, $0-57
	MOVQ y+0(FP), DI
	MOVQ n+8(FP), R8
	SHLQ $2, R8              // y's row stride in bytes
	MOVQ x+16(FP), SI
	MOVQ k+24(FP), R9
	SHLQ $2, R9              // x's row stride in bytes
	MOVQ w+32(FP), DX
	MOVQ wn+40(FP), R10
	SHLQ $2, R10             // w's row stride in bytes
	MOVQ count+48(FP), CX
	LEAQ (DI)(R8*2), R11     // y's row 2
	LEAQ (SI)(R9*2), R12     // x's row 2
	CMPB accumulate+56(FP), $0
	JEQ  zero
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS (DI)(R8*1), Y2
	VMOVUPS 32(DI)(R8*1), Y3
	VMOVUPS (R11), Y4
	VMOVUPS 32(R11), Y5
	VMOVUPS (R11)(R8*1), Y6
	VMOVUPS 32(R11)(R8*1), Y7
	JMP  check

zero:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7

check:
	TESTQ CX, CX
	JEQ   done

loop:
	VMOVUPS      (DX), Y8
	VMOVUPS      32(DX), Y9
	VBROADCASTSS (SI), Y10
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VBROADCASTSS (SI)(R9*1), Y11
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3
	VBROADCASTSS (R12), Y12
	VFMADD231PS  Y8, Y12, Y4
	VFMADD231PS  Y9, Y12, Y5
	VBROADCASTSS (R12)(R9*1), Y13
	VFMADD231PS  Y8, Y13, Y6
	VFMADD231PS  Y9, Y13, Y7
	ADDQ         $4, SI
	ADDQ         $4, R12
	ADDQ         R10, DX
	DECQ         CX
	JNZ          loop

done:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, (DI)(R8*1)
	VMOVUPS Y3, 32(DI)(R8*1)
	VMOVUPS Y4, (R11)
	VMOVUPS Y5, 32(R11)
	VMOVUPS Y6, (R11)(R8*1)
	VMOVUPS Y7, 32(R11)(R8*1)
	VZEROUPPER
	RET

// func tile8x32AVX512(y *float32, n int, x *float32, k int, w *float32, wn int, count int, accumulate bool)
//
// tile4x32AVX512 for 8 rows of x: 16 accumulators, 2 loads of w and 8 broadcasts of x per 16 multiply-adds.
TEXT ·tile8x32AVX512(SB), NOSPLIT, $0-57
	MOVQ y+0(FP), DI
	MOVQ n+8(FP), R8
	SHLQ $2, R8              // y's row stride in bytes
	MOVQ x+16(FP), SI
	MOVQ k+24(FP), R9
	SHLQ $2, R9              // x's row stride in bytes
	MOVQ w+32(FP), DX
	MOVQ wn+40(FP), R10
	SHLQ $2, R10             // w's row stride in bytes
	MOVQ count+48(FP), CX
	LEAQ (DI)(R8*2), R11
	ADDQ R8, R11             // y's row 3
	LEAQ (DI)(R8*4), AX      // y's row 4
	LEAQ (AX)(R8*2), R13
	ADDQ R8, R13             // y's row 7
	CMPB accumulate+56(FP), $0
	JEQ  zero8
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
	JMP  start8

zero8:
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

start8:
	LEAQ (SI)(R9*2), BX
	ADDQ R9, BX              // x's row 3
	LEAQ (SI)(R9*4), R12     // x's row 4
	TESTQ CX, CX
	JEQ   done8
	LEAQ (R12)(R9*2), AX
	ADDQ R9, AX              // x's row 7

loop8:
	VMOVUPS      (DX), Z16
	VMOVUPS      64(DX), Z17
	VBROADCASTSS (SI), Z18
	VFMADD231PS  Z16, Z18, Z0
	VFMADD231PS  Z17, Z18, Z1
	VBROADCASTSS (SI)(R9*1), Z19
	VFMADD231PS  Z16, Z19, Z2
	VFMADD231PS  Z17, Z19, Z3
	VBROADCASTSS (SI)(R9*2), Z20
	VFMADD231PS  Z16, Z20, Z4
	VFMADD231PS  Z17, Z20, Z5
	VBROADCASTSS (BX), Z21
	VFMADD231PS  Z16, Z21, Z6
	VFMADD231PS  Z17, Z21, Z7
	VBROADCASTSS (R12), Z22
	VFMADD231PS  Z16, Z22, Z8
	VFMADD231PS  Z17, Z22, Z9
	VBROADCASTSS (R12)(R9*1), Z23
	VFMADD231PS  Z16, Z23, Z10
	VFMADD231PS  Z17, Z23, Z11
	VBROADCASTSS (R12)(R9*2), Z24
	VFMADD231PS  Z16, Z24, Z12
	VFMADD231PS  Z17, Z24, Z13
	VBROADCASTSS (AX), Z25
	VFMADD231PS  Z16, Z25, Z14
	VFMADD231PS  Z17, Z25, Z15
	ADDQ         $4, SI
	ADDQ         $4, BX
	ADDQ         $4, R12
	ADDQ         $4, AX
	ADDQ         R10, DX
	DECQ         CX
	JNZ          loop8

done8:
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

// func tile6x16AVX2(y *float32, n int, x *float32, k int, w *float32, wn int, count int, accumulate bool)
//
// tile4x16AVX2 for 6 rows of x: 12 accumulators, 3 FMA latencies' worth on a CPU with two FMA units (the
// 4-row tile's 8 are 2), 2 loads of w and 6 broadcasts of x per 12 multiply-adds; with the two rows of w and
// one broadcast at a time, the 16 YMM registers.
TEXT ·tile6x16AVX2(SB), NOSPLIT, $0-57
	MOVQ y+0(FP), DI
	MOVQ n+8(FP), R8
	SHLQ $2, R8              // y's row stride in bytes
	MOVQ x+16(FP), SI
	MOVQ k+24(FP), R9
	SHLQ $2, R9              // x's row stride in bytes
	MOVQ w+32(FP), DX
	MOVQ wn+40(FP), R10
	SHLQ $2, R10             // w's row stride in bytes
	MOVQ count+48(FP), CX
	LEAQ (DI)(R8*2), R11     // y's row 2
	LEAQ (R11)(R8*2), R13    // y's row 4
	LEAQ (SI)(R9*2), R12     // x's row 2
	LEAQ (R12)(R9*2), BX     // x's row 4
	CMPB accumulate+56(FP), $0
	JEQ  zero6
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS (DI)(R8*1), Y2
	VMOVUPS 32(DI)(R8*1), Y3
	VMOVUPS (R11), Y4
	VMOVUPS 32(R11), Y5
	VMOVUPS (R11)(R8*1), Y6
	VMOVUPS 32(R11)(R8*1), Y7
	VMOVUPS (R13), Y8
	VMOVUPS 32(R13), Y9
	VMOVUPS (R13)(R8*1), Y10
	VMOVUPS 32(R13)(R8*1), Y11
	JMP  check6

zero6:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	VPXOR Y8, Y8, Y8
	VPXOR Y9, Y9, Y9
	VPXOR Y10, Y10, Y10
	VPXOR Y11, Y11, Y11

check6:
	TESTQ CX, CX
	JEQ   done6

loop6:
	VMOVUPS      (DX), Y12
	VMOVUPS      32(DX), Y13
	VBROADCASTSS (SI), Y14
	VFMADD231PS  Y12, Y14, Y0
	VFMADD231PS  Y13, Y14, Y1
	VBROADCASTSS (SI)(R9*1), Y15
	VFMADD231PS  Y12, Y15, Y2
	VFMADD231PS  Y13, Y15, Y3
	VBROADCASTSS (R12), Y14
	VFMADD231PS  Y12, Y14, Y4
	VFMADD231PS  Y13, Y14, Y5
	VBROADCASTSS (R12)(R9*1), Y15
	VFMADD231PS  Y12, Y15, Y6
	VFMADD231PS  Y13, Y15, Y7
	VBROADCASTSS (BX), Y14
	VFMADD231PS  Y12, Y14, Y8
	VFMADD231PS  Y13, Y14, Y9
	VBROADCASTSS (BX)(R9*1), Y15
	VFMADD231PS  Y12, Y15, Y10
	VFMADD231PS  Y13, Y15, Y11
	ADDQ         $4, SI
	ADDQ         $4, R12
	ADDQ         $4, BX
	ADDQ         R10, DX
	DECQ         CX
	JNZ          loop6

done6:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, (DI)(R8*1)
	VMOVUPS Y3, 32(DI)(R8*1)
	VMOVUPS Y4, (R11)
	VMOVUPS Y5, 32(R11)
	VMOVUPS Y6, (R11)(R8*1)
	VMOVUPS Y7, 32(R11)(R8*1)
	VMOVUPS Y8, (R13)
	VMOVUPS Y9, 32(R13)
	VMOVUPS Y10, (R13)(R8*1)
	VMOVUPS Y11, 32(R13)(R8*1)
	VZEROUPPER
	RET
