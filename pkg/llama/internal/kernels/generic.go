package kernels

import "math"

func matMulGeneric(y, x, w []float32, m, k, n, j0, j1 int, accumulate bool) {
	for i := range m {
		yi := y[i*n+j0 : i*n+j1]
		if !accumulate {
			clear(yi)
		}
		xi := x[i*k : (i+1)*k]
		for p, a := range xi {
			wp := w[p*n+j0 : p*n+j1]
			for j := range yi {
				yi[j] += a * wp[j]
			}
		}
	}
}

func weightedSumGeneric(out, a, v []float32, stride int) {
	clear(out)
	for p, c := range a {
		row := v[p*stride : p*stride+len(out)]
		for d := range out {
			out[d] += c * row[d]
		}
	}
}

func softmaxGeneric(s []float32) {
	mx := s[0]
	for _, v := range s {
		mx = max(mx, v)
	}
	var sum float32
	for i, v := range s {
		e := expGeneric(v - mx)
		s[i] = e
		sum += e
	}
	inv := 1 / sum
	for i := range s {
		s[i] *= inv
	}
}

func siluMulGeneric(out, g, u []float32) {
	for i, x := range g {
		out[i] = x / (1 + expGeneric(-x)) * u[i]
	}
}

func rmsNormGeneric(y, x, w []float32, eps float32) {
	var ss float32
	for _, v := range x {
		ss += v * v
	}
	r := float32(1 / math.Sqrt(float64(ss/float32(len(x))+eps)))
	for i, v := range x {
		y[i] = v * r * w[i]
	}
}

// expGeneric is e^x in float32 with the AVX-512 version's method (exp.go), so both agree to rounding.
func expGeneric(x float32) float32 {
	x = min(max(x, expLo), expHi)
	n := float32(math.RoundToEven(float64(x * log2e)))
	r := x - n*ln2Hi - n*ln2Lo
	p := expPoly(r)
	return p * math.Float32frombits(uint32(int32(n)+127)<<23)
}
