package exact_test

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/exact"
	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/sample"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/golden.txt from the samplers as they are")

// goldenHash hashes everything a sampler returns, floats by their bits, and
// every Config.Ended call in order.
type goldenHash struct{ b strings.Builder }

func newGoldenHash() *goldenHash { return &goldenHash{} }

func (g *goldenHash) printf(format string, args ...any) { fmt.Fprintf(&g.b, format, args...) }

func (g *goldenHash) floats(xs ...float64) {
	for _, x := range xs {
		g.printf("%x,", math.Float64bits(x))
	}
	g.printf(";")
}

func (g *goldenHash) record(r *sample.Record) {
	if r == nil {
		g.printf("nil\n")
		return
	}
	g.printf("%v %v %d %d|", r.Tokens, r.Status, r.Evals, r.Rejections)
	g.floats(r.LogP...)
	g.floats(r.LogQ...)
	g.floats(r.Entropy...)
	g.floats(r.RawEntropy...)
	g.printf("\n")
}

func (g *goldenHash) records(rs []*sample.Record) {
	g.printf("%d[", len(rs))
	for _, r := range rs {
		g.record(r)
	}
	g.printf("]")
}

func (g *goldenHash) sum() string {
	h := sha256.Sum256([]byte(g.b.String()))
	return fmt.Sprintf("%x", h[:12])
}

// goldenRands returns n per-run sources of seed; those whose index is in
// idle are nil.
func goldenRands(seed uint64, n int, idle ...int) []*rand.Rand {
	out := make([]*rand.Rand, n)
	for i := range out {
		if !contains(idle, i) {
			out[i] = sample.NewRand(sample.DeriveSeed(seed, i))
		}
	}
	return out
}

// goldenShapes are batch shapes: a single row, a full batch, and batches
// with idle rows.
var goldenShapes = []struct {
	n    int
	idle []int
}{{1, nil}, {5, nil}, {7, []int{1, 4}}, {4, []int{0, 3}}}

// goldenCases returns, for one toy, every sampler run whose output is
// pinned: name → a function that runs it and hashes its output.
func goldenCases(toy *exact.Toy) map[string]func(c sample.Config, g *goldenHash) error {
	m, p := toy.Model, toy.Prompt
	cases := map[string]func(c sample.Config, g *goldenHash) error{}
	for si, sh := range goldenShapes {
		rands := func(seed uint64) []*rand.Rand { return goldenRands(seed+uint64(10*si), sh.n, sh.idle...) }
		tag := strings.ReplaceAll(fmt.Sprintf("/%d-idle%v", sh.n, sh.idle), " ", ",")
		cases["gcd-each"+tag] = func(c sample.Config, g *goldenHash) error {
			recs, st, err := c.GCDEach(m, p, rands(1))
			g.records(recs)
			g.printf("%+v", st)
			return err
		}
		cases["rejection-each"+tag] = func(c sample.Config, g *goldenHash) error {
			recs, st, err := c.RejectionEach(m, p, 4, rands(2))
			g.records(recs)
			g.printf("%+v", st)
			return err
		}
		cases["asap-each"+tag] = func(c sample.Config, g *goldenHash) error {
			out, st, err := c.ASApEach(m, p, 4, rands(3))
			for _, o := range out {
				g.records(o)
			}
			g.printf("%+v", st)
			return err
		}
		for _, v := range []sample.Variant{sample.RS, sample.RSFT, sample.ARS, sample.CARS} {
			for _, budget := range []int{0, 3} {
				if budget == 0 && (v == sample.RS || v == sample.RSFT) {
					continue // unbounded, they never stop where the language is empty
				}
				cases[fmt.Sprintf("%v-b%d%s", v, budget, tag)] = func(c sample.Config, g *goldenHash) error {
					rs := sample.RejectionSampler{Variant: v, Trie: sample.NewTrie(), Budget: budget}
					for call := range 2 { // the second call continues the first's trie
						out, st, err := c.CARS(m, p, rs, 3, rands(4+uint64(call)))
						if err != nil {
							return err
						}
						for _, o := range out {
							g.records(o)
						}
						g.printf("%+v %d %x", st, rs.Trie.Nodes(), math.Float64bits(rs.Trie.Dead()))
					}
					return nil
				}
			}
		}
		for _, proposal := range []mcmc.Proposal{mcmc.Uniform{}, mcmc.Priority{}, mcmc.PriorityPP{}, mcmc.Restart{}, mcmc.Mix{P: 0.5}} {
			cases[fmt.Sprintf("mcmc-%s%s", proposal, tag)] = func(c sample.Config, g *goldenHash) error {
				res, err := mcmc.RunEach(m, p, mcmc.Config{Sample: c, Proposal: proposal, Steps: 6}, rands(6))
				if err != nil {
					return err
				}
				goldenChains(g, res)
				return nil
			}
		}
	}
	cases["gcd"] = func(c sample.Config, g *goldenHash) error {
		recs, st, err := c.GCD(m, p, 6, rand.New(rand.NewPCG(1, 2)))
		g.records(recs)
		g.printf("%+v", st)
		return err
	}
	cases["asap"] = func(c sample.Config, g *goldenHash) error {
		out, st, err := c.ASAp(m, p, 3, 5, rand.New(rand.NewPCG(3, 4)))
		for _, o := range out {
			g.records(o)
		}
		g.printf("%+v", st)
		return err
	}
	for _, rows := range []int{1, 3} {
		cases[fmt.Sprintf("rejection/rows%d", rows)] = func(c sample.Config, g *goldenHash) error {
			recs, st, err := c.Rejection(m, p, sample.RejectionOptions{Want: 5, Budget: 40, Rows: rows}, rand.New(rand.NewPCG(5, 6)))
			g.records(recs)
			g.printf("%+v", st)
			return err
		}
	}
	cases["mcmc-run"] = func(c sample.Config, g *goldenHash) error {
		res, err := mcmc.Run(m, p, 3, mcmc.Config{Sample: c, Proposal: mcmc.Mix{P: 0.3}, Steps: 5}, rand.New(rand.NewPCG(7, 8)))
		if err != nil {
			return err
		}
		goldenChains(g, res)
		return nil
	}
	for _, ess := range []float64{0, 0.5, 1} {
		for _, awrs := range []bool{false, true} {
			cases[fmt.Sprintf("smc/ess%g-awrs%v", ess, awrs)] = func(c sample.Config, g *goldenHash) error {
				opt := sample.SMCOptions{Particles: 4, ESS: ess, AWRS: awrs}
				runs, st, err := c.SMC(m, p, opt, goldenRands(8, 3))
				if err != nil {
					return err
				}
				for _, r := range runs {
					g.records(r.Particles)
					g.floats(r.LogW...)
					g.floats(r.LogZ)
					g.printf("%d %d", r.Resamples, r.Evals)
				}
				g.printf("%+v", st)
				return nil
			}
		}
	}
	return cases
}

func goldenChains(g *goldenHash, res *mcmc.Result) {
	for _, ch := range res.Chains {
		g.record(ch.Init)
		g.printf("%d:", ch.InitEvals)
		for _, s := range ch.Steps {
			g.printf("%d %d %v ", s.Kernel, s.Cut, s.Accepted)
			g.floats(s.LogAlpha)
			g.record(s.Proposal)
		}
	}
	g.printf("%+v", res.Stats)
}

// goldenConfigs are the configurations each case runs under: the toy's,
// and one with top-k 3 (dead ends) and a shorter cap.
var goldenConfigs = []struct {
	name string
	edit func(c *sample.Config)
}{
	{"", func(*sample.Config) {}},
	// The languages of skew, utf8 and forced are empty here.
	{"topk3", func(c *sample.Config) { c.Transform = lm.Transform{TopK: 3}; c.MaxNew = 5 }},
}

// TestGolden pins the output of every sampler, bit for bit, on every toy,
// several batch shapes and configurations: a refactor must leave the
// random draws and the records as they were. After a deliberate change,
// go test ./pkg/exact -run Golden -update rewrites testdata/golden.txt.
func TestGolden(t *testing.T) {
	toys, err := exact.Toys()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, toy := range toys {
		for _, gc := range goldenConfigs {
			for name, run := range goldenCases(toy) {
				c := toy.Config
				gc.edit(&c)
				g := newGoldenHash()
				c.Ended = func(row int, r *sample.Record) {
					g.printf("ended %d %v %d %d\n", row, r.Status, len(r.Tokens), r.Evals)
				}
				key := strings.Join([]string{toy.Name, gc.name, name}, "/")
				if err := run(c, g); err != nil {
					g.printf("error %v", err)
				}
				got[key] = g.sum()
			}
		}
	}
	const path = "testdata/golden.txt"
	if *updateGolden {
		var b strings.Builder
		for _, key := range slices.Sorted(maps.Keys(got)) {
			fmt.Fprintf(&b, "%s %s\n", key, got[key])
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		key, h, _ := strings.Cut(line, " ")
		want[key] = h
	}
	for key, h := range got {
		if want[key] != h {
			t.Errorf("%s: hash %s, golden %q", key, h, want[key])
		}
	}
	if len(want) != len(got) {
		t.Errorf("%d cases, golden has %d", len(got), len(want))
	}
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
