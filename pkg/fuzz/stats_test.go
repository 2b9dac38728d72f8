package fuzz

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"
)

// Cases worked by hand: U counts the pairs x_i > y_j (ties half), the
// exact p-value is twice the upper tail of the larger U over the
// C(m+n, m) orderings, and with ties the normal approximation uses
// σ² = n1·n2/12·((N+1) − Σ(t³−t)/(N(N−1))) and z = (U_max − n1·n2/2 − 0.5)/σ.
func TestMannWhitneyHand(t *testing.T) {
	for _, c := range []struct {
		name    string
		x, y    []float64
		u, p    float64
		exact   bool
		a12     float64
		a12Size string
	}{
		// Separated, 3 vs 3: one ordering of 20 has U = 9.
		{"separated 3v3", []float64{1, 2, 3}, []float64{4, 5, 6}, 0, 2.0 / 20, true, 0, "large"},
		// Interleaved: U = 3 (3>2, 5>2, 5>4). U for 3 vs 3 counts
		// 1,1,2,3,3,3,3,2,1,1 for U = 0…9, so P(U ≥ 6) = 7/20.
		{"interleaved 3v3", []float64{1, 3, 5}, []float64{2, 4, 6}, 3, 2 * 7.0 / 20, true, 3.0 / 9, "medium"},
		// Separated, 5 vs 5 (the main run's trials): p = 2/252, the smallest
		// p with five trials a side.
		{"separated 5v5", []float64{10, 11, 12, 13, 14}, []float64{1, 2, 3, 4, 5}, 25, 2.0 / 252, true, 1, "large"},
		// Two against two: no p below 2/6.
		{"separated 2v2", []float64{3, 4}, []float64{1, 2}, 4, 2.0 / 6, true, 1, "large"},
		// Ties: ranks 1; 3,3,3; 5.5,5.5; R1 = 7, U1 = 1, Σ(t³−t) = 24+6,
		// σ² = 9/12·(7 − 30/30) = 4.5, z = (8 − 4.5 − 0.5)/√4.5 = √2, p = erfc(1).
		{"ties 3v3", []float64{1, 2, 2}, []float64{2, 3, 3}, 1, math.Erfc(1), false, 1.0 / 9, "large"},
		// Everything tied: no evidence either way.
		{"all tied", []float64{7, 7}, []float64{7, 7, 7}, 3, 1, false, 0.5, "negligible"},
	} {
		got, err := MannWhitneyU(c.x, c.y)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.U != c.u || math.Abs(got.P-c.p) > 1e-12 || got.Exact != c.exact {
			t.Errorf("%s: got U %v p %.15g exact %v, want U %v p %.15g exact %v", c.name, got.U, got.P, got.Exact, c.u, c.p, c.exact)
		}
		a := VarghaDelaneyA12(c.x, c.y)
		if math.Abs(a-c.a12) > 1e-12 || EffectSize(a) != c.a12Size {
			t.Errorf("%s: Â12 %v (%s), want %v (%s)", c.name, a, EffectSize(a), c.a12, c.a12Size)
		}
		if math.Abs(a-got.U/float64(len(c.x)*len(c.y))) > 1e-12 {
			t.Errorf("%s: Â12 %v is not U/(n1·n2) = %v", c.name, a, got.U/float64(len(c.x)*len(c.y)))
		}
	}
}

// The null distribution of U holds C(m+n, m) orderings, symmetric about
// m·n/2, and is the same for (m, n) and (n, m).
func TestUCounts(t *testing.T) {
	for _, mn := range [][2]int{{1, 1}, {3, 3}, {5, 7}, {8, 20}} {
		m, n := mn[0], mn[1]
		c, d := uCounts(m, n), uCounts(n, m)
		total := 0.0
		for v := range c {
			total += c[v]
			if c[v] != c[len(c)-1-v] || c[v] != d[v] {
				t.Errorf("(%d, %d): counts not symmetric at U = %d: %v", m, n, v, c)
				break
			}
		}
		if want := binomial(m+n, m); total != want {
			t.Errorf("(%d, %d): %v orderings, want C(%d, %d) = %v", m, n, total, m+n, m, want)
		}
	}
	if got := uCounts(3, 3); !equalFloats(got, []float64{1, 1, 2, 3, 3, 3, 3, 2, 1, 1}) {
		t.Errorf("uCounts(3, 3) = %v", got)
	}
}

func binomial(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return math.Round(r)
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestMannWhitneyBadInput(t *testing.T) {
	for _, c := range []struct {
		x, y []float64
		want string
	}{
		{nil, []float64{1}, "Mann-Whitney U test: empty sample (0 and 1 values)"},
		{[]float64{1, math.NaN()}, []float64{1}, "Mann-Whitney U test: a value is NaN"},
	} {
		if _, err := MannWhitneyU(c.x, c.y); err == nil || err.Error() != c.want {
			t.Errorf("MannWhitneyU(%v, %v): err %v, want %q", c.x, c.y, err, c.want)
		}
	}
	if a := VarghaDelaneyA12(nil, []float64{1}); !math.IsNaN(a) || EffectSize(a) != "" {
		t.Errorf("Â12 of an empty sample = %v (%q), want NaN", a, EffectSize(a))
	}
}

// scipyPython is Debian's Python, where scripts/test-deps.sh installs
// python3-scipy.
const scipyPython = "/usr/bin/python3"

// TestMannWhitneyScipy compares MannWhitneyU with scipy.stats.mannwhitneyu
// (two-sided, method "auto", continuity correction) on random samples of
// 1 to 14 values, with and without ties, both sides of the exact/normal
// switch. It skips without python3-scipy, except under CI=true.
func TestMannWhitneyScipy(t *testing.T) {
	if err := exec.Command(scipyPython, "-c", "import scipy.stats").Run(); err != nil {
		msg := "python3-scipy is not installed (bash scripts/test-deps.sh installs it): %v"
		if os.Getenv("CI") == "true" {
			t.Fatalf(msg, err)
		}
		t.Skipf(msg, err)
	}
	type sample struct{ X, Y []float64 }
	rng := rand.New(rand.NewPCG(34, 12))
	var cases []sample
	for i := range 300 {
		var s sample
		n1, n2 := 1+rng.IntN(14), 1+rng.IntN(14)
		shift := rng.Float64() * 2
		draw := func(n int, off float64) []float64 {
			xs := make([]float64, n)
			for k := range xs {
				xs[k] = rng.NormFloat64() + off
				if i%2 == 1 { // coarse values: ties within and across samples
					xs[k] = math.Round(xs[k] * 2)
				}
			}
			return xs
		}
		s.X, s.Y = draw(n1, shift), draw(n2, 0)
		cases = append(cases, s)
	}
	in, _ := json.Marshal(cases)
	const script = `
import json, sys
from scipy.stats import mannwhitneyu
out = []
for c in json.load(sys.stdin):
    r = mannwhitneyu(c["X"], c["Y"], alternative="two-sided", method="auto", use_continuity=True)
    out.append([float(r.statistic), float(r.pvalue)])
json.dump(out, sys.stdout)
`
	cmd := exec.Command(scipyPython, "-c", script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("scipy: %v\n%s", err, stderr.Bytes())
	}
	var want [][2]float64
	if err := json.Unmarshal(raw, &want); err != nil || len(want) != len(cases) {
		t.Fatalf("scipy's answer: %v (%d results for %d cases)", err, len(want), len(cases))
	}
	exact, normal := 0, 0
	for i, c := range cases {
		got, err := MannWhitneyU(c.X, c.Y)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if got.Exact {
			exact++
		} else {
			normal++
		}
		if math.Abs(got.U-want[i][0]) > 1e-9 || math.Abs(got.P-want[i][1]) > 1e-9*max(1, want[i][1]) {
			t.Errorf("case %d (x %v, y %v): U %v p %.12g (exact %v), scipy U %v p %.12g",
				i, c.X, c.Y, got.U, got.P, got.Exact, want[i][0], want[i][1])
		}
	}
	if exact < 50 || normal < 50 {
		t.Errorf("only %d exact and %d normal-approximation cases: the comparison does not cover both", exact, normal)
	}
}
