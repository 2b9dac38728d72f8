package sample_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/gasplab/gasp/pkg/exact"
	"github.com/gasplab/gasp/pkg/sample"
)

var smcConfigs = []sample.SMCOptions{
	{Particles: 1},
	{Particles: 4},
	{Particles: 4, ESS: 0.5},
	{Particles: 4, ESS: 1},
	{Particles: 1, AWRS: true},
	{Particles: 4, ESS: 0.5, AWRS: true},
}

func smcName(o sample.SMCOptions) string {
	return fmt.Sprintf("N=%d ESS=%g AWRS=%v", o.Particles, o.ESS, o.AWRS)
}

// The estimate of P(L) is unbiased for every number of particles, with or
// without resampling and AWRS: its mean over many runs is P(L) exactly.
func TestSMCNormalizerUnbiased(t *testing.T) {
	for i, pb := range problems(t) {
		for c, opt := range smcConfigs {
			const runs = 4000
			out, _, err := pb.Toy.Config.SMC(pb.Toy.Model, pb.Toy.Prompt, opt, seededRands(uint64(100*i+c), 0, runs))
			if err != nil {
				t.Fatal(err)
			}
			s, s2, resamples := 0.0, 0.0, 0
			for _, r := range out {
				z := math.Exp(r.LogZ)
				s += z
				s2 += z * z
				resamples += r.Resamples
			}
			mean := s / runs
			sd := math.Sqrt(max(0, s2/runs-mean*mean))
			z := (mean - pb.Lang.Mass) / (sd / math.Sqrt(runs))
			name := pb.Toy.Name + " " + smcName(opt)
			t.Logf("%s: mean Ẑ %.5f ± %.5f, P(L) %.5f (z = %.2f); %d resamplings", name, mean, sd/math.Sqrt(runs), pb.Lang.Mass, z, resamples)
			if math.Abs(z) > 4.5 {
				t.Errorf("%s: Ẑ is biased: mean %v, P(L) %v (z = %.2f)", name, mean, pb.Lang.Mass, z)
			}
			if opt.ESS == 1 && opt.Particles > 1 && resamples == 0 {
				t.Errorf("%s: never resampled", name)
			}
		}
	}
}

// sirExact returns the exact distribution of one particle picked ∝ weight
// from n importance-sampling particles (no resampling) drawn from GCD,
// conditioned on some particle being a sentence: P(pick x) ∝ n·q(x)·
// E[w(x)/(w(x) + W_2 + … + W_n)], W_j the weights of the others (0 for
// invalid runs), w(x) = P(x)/q(x).
func sirExact(l *exact.Lang, n int) []float64 {
	valid := 1 - l.GCDInvalid
	q := make([]float64, l.Len())
	w := make([]float64, l.Len())
	for i := range q {
		q[i] = l.GCD[i] * valid
		w[i] = l.P[i] / q[i]
	}
	// The distribution of the others' total weight.
	sums := map[float64]float64{0: 1}
	for range n - 1 {
		next := map[float64]float64{}
		for s, p := range sums {
			next[s] += p * l.GCDInvalid
			for j := range q {
				next[s+w[j]] += p * q[j]
			}
		}
		sums = next
	}
	out := make([]float64, l.Len())
	tot := 0.0
	for i := range out {
		e := 0.0
		for s, p := range sums {
			e += p * w[i] / (w[i] + s)
		}
		out[i] = float64(n) * q[i] * e
		tot += out[i]
	}
	for i := range out {
		out[i] /= tot
	}
	return out
}

// One particle picked from n importance-sampling particles follows the
// exact SIR distribution, computed by enumeration, for n = 1 (GCD), 2, 3.
func TestSMCExactSIR(t *testing.T) {
	for i, pb := range problems(t) {
		for n := 1; n <= 3; n++ {
			const runs = 15000
			rands := seededRands(uint64(1000+10*i+n), 0, runs)
			out, _, err := pb.Toy.Config.SMC(pb.Toy.Model, pb.Toy.Prompt, sample.SMCOptions{Particles: n}, rands)
			if err != nil {
				t.Fatal(err)
			}
			var picked []*sample.Record
			for j, r := range out {
				if x := r.Pick(rands[j]); x != nil {
					picked = append(picked, x)
				}
			}
			want := sirExact(pb.Lang, n)
			if n == 1 && exact.TV(want, pb.Lang.GCD) > 1e-12 {
				t.Fatalf("%s: SIR with one particle is not GCD", pb.Toy.Name)
			}
			r := pb.Lang.Test(picked, want)
			t.Logf("%s: SIR(%d) vs exact: %v; TV(SIR(%d), P^G) = %.4f", pb.Toy.Name, n, r, n, exact.TV(want, pb.Lang.Target))
			if r.P < pMin {
				t.Errorf("%s: SIR(%d) does not match its exact distribution: %v", pb.Toy.Name, n, r)
			}
		}
	}
}

// With resampling, the mean weighted estimate of P^G approaches P^G as the
// number of particles grows.
func TestSMCConverges(t *testing.T) {
	for i, pb := range problems(t) {
		var tvs []float64
		for _, n := range []int{1, 4, 16, 64, 256} {
			runs := max(20, 16384/n)
			out, _, err := pb.Toy.Config.SMC(pb.Toy.Model, pb.Toy.Prompt, sample.SMCOptions{Particles: n, ESS: 0.5}, seededRands(uint64(2000+i), n, runs))
			if err != nil {
				t.Fatal(err)
			}
			est := make([]float64, pb.Lang.Len())
			for _, r := range out {
				for j, w := range r.Weights() {
					if k := pb.Lang.Index(r.Particles[j].Tokens); k >= 0 && r.Particles[j].Valid() {
						est[k] += w / float64(runs)
					} else if w > 0 {
						t.Fatalf("%s: a particle outside the language has weight %v", pb.Toy.Name, w)
					}
				}
			}
			tvs = append(tvs, exact.TV(est, pb.Lang.Target))
		}
		t.Logf("%s: TV(mean SMC estimate, P^G) for N = 1, 4, 16, 64, 256: %.4f", pb.Toy.Name, tvs)
		if last := tvs[len(tvs)-1]; last > 0.03 || last > tvs[0]/4 {
			t.Errorf("%s: SMC does not converge: TV %v", pb.Toy.Name, tvs)
		}
	}
}
