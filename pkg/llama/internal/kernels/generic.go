package kernels

import "math"

// matMulGeneric computes y (+)= x·w in portable Go, 4 rows of x by 2 columns of w at a time: the eight
// sums stay in registers while p runs over k (in order, as in the vector versions), so that each x and w
// value loaded serves 2 or 4 products, where a row-by-row axpy loads and stores y for every product. The
// rows left over go one at a time as axpys over w's rows (row-major, so a single row reads w in order), the
// columns left over one at a time.
func matMulGeneric(y, x, w []float32, m, k, n, j0, j1 int, accumulate bool) {
	i := 0
	for ; i+4 <= m; i += 4 {
		x0, x1, x2, x3 := x[i*k:(i+1)*k], x[(i+1)*k:(i+2)*k], x[(i+2)*k:(i+3)*k], x[(i+3)*k:(i+4)*k]
		y0, y1, y2, y3 := y[i*n:(i+1)*n], y[(i+1)*n:(i+2)*n], y[(i+2)*n:(i+3)*n], y[(i+3)*n:(i+4)*n]
		j := j0
		for ; j+2 <= j1; j += 2 {
			var s00, s01, s10, s11, s20, s21, s30, s31 float32
			if accumulate {
				s00, s01, s10, s11 = y0[j], y0[j+1], y1[j], y1[j+1]
				s20, s21, s30, s31 = y2[j], y2[j+1], y3[j], y3[j+1]
			}
			q := j
			for p, a0 := range x0 {
				w0, w1 := w[q], w[q+1]
				a1, a2, a3 := x1[p], x2[p], x3[p]
				s00 += a0 * w0
				s01 += a0 * w1
				s10 += a1 * w0
				s11 += a1 * w1
				s20 += a2 * w0
				s21 += a2 * w1
				s30 += a3 * w0
				s31 += a3 * w1
				q += n
			}
			y0[j], y0[j+1], y1[j], y1[j+1] = s00, s01, s10, s11
			y2[j], y2[j+1], y3[j], y3[j+1] = s20, s21, s30, s31
		}
		if j < j1 {
			for r, xr := range [4][]float32{x0, x1, x2, x3} {
				yr := y[(i+r)*n : (i+r+1)*n]
				yr[j] = dotColumn(xr, w, n, j, yr[j], accumulate)
			}
		}
	}
	for ; i < m; i++ {
		yi := y[i*n+j0 : i*n+j1]
		if !accumulate {
			clear(yi)
		}
		for p, a := range x[i*k : (i+1)*k] {
			wp := w[p*n+j0 : p*n+j1]
			for j := range yi {
				yi[j] += a * wp[j]
			}
		}
	}
}

// tileBounds checks, once, the bounds an assembly tile of rows×width (tile_amd64.s) relies on, for the tile
// of y at row i and column j summed over rows p0 ≤ p < p1 of w's panel (row p0 at w[wp], rows wn apart), and
// returns where the tile starts in y and how many rows of w it sums: none clears it, unless it accumulates.
func tileBounds(y, x, w []float32, wp, wn, i, j, k, n, p0, p1, rows, width int, accumulate bool) (o, count int) {
	o, count = i*n+j, p1-p0
	_ = y[o+(rows-1)*n+width-1]
	if count == 0 {
		if !accumulate {
			clearTile(y, o, n, rows, width)
		}
		return o, 0
	}
	_ = x[(i+rows-1)*k+p1-1]
	_ = w[wp+(count-1)*wn+width-1]
	return o, count
}

// clearTile sets to 0 the width columns of y from o in rows rows n apart: a tile's sums over no rows of w.
func clearTile(y []float32, o, n, rows, width int) {
	for r := range rows {
		clear(y[o+r*n : o+r*n+width])
	}
}

// dotColumn returns Σ_p xi[p]·w[p·n+j], added to y0 when accumulate is true.
func dotColumn(xi, w []float32, n, j int, y0 float32, accumulate bool) float32 {
	var s float32
	if accumulate {
		s = y0
	}
	q := j
	for _, a := range xi {
		s += a * w[q]
		q += n
	}
	return s
}

// weightedSumGeneric computes out = Σ_p a[p]·v[p·stride:], 4 rows of v at a time, so that out is loaded
// and stored once for 4 products instead of once for each.
func weightedSumGeneric(out, a, v []float32, stride int) {
	clear(out)
	d := len(out)
	p := 0
	for ; p+4 <= len(a); p += 4 {
		c0, c1, c2, c3 := a[p], a[p+1], a[p+2], a[p+3]
		r0, r1 := v[p*stride:p*stride+d], v[(p+1)*stride:(p+1)*stride+d]
		r2, r3 := v[(p+2)*stride:(p+2)*stride+d], v[(p+3)*stride:(p+3)*stride+d]
		for i := range out {
			out[i] += c0*r0[i] + c1*r1[i] + c2*r2[i] + c3*r3[i]
		}
	}
	for ; p < len(a); p++ {
		c, row := a[p], v[p*stride:p*stride+d]
		for i := range out {
			out[i] += c * row[i]
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
