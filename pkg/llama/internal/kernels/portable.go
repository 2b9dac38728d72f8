//go:build !(goexperiment.simd && amd64)

package kernels

const useAVX512 = false

func matMulAVX512(y, x, w []float32, m, k, n, j0, j1 int, accumulate bool) {
	panic("kernels: no AVX-512")
}
func scoresAVX512(s, q, kt []float32, stride int)  { panic("kernels: no AVX-512") }
func weightedSumAVX512(out, a, v []float32)        { panic("kernels: no AVX-512") }
func softmaxAVX512(s []float32)                    { panic("kernels: no AVX-512") }
func siluMulAVX512(out, g, u []float32)            { panic("kernels: no AVX-512") }
func rmsNormAVX512(y, x, w []float32, eps float32) { panic("kernels: no AVX-512") }
