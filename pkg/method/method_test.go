package method

import (
	"fmt"
	"testing"

	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/sample"
)

func TestParse(t *testing.T) {
	for _, name := range append(Names(), "mcmc-mix-0.5", "mcmc-mix-1", "smc-1", "smc-awrs-8") {
		if _, err := Parse(name); err != nil {
			t.Errorf("Parse(%q): %v", name, err)
		}
	}
	for _, name := range []string{"", "mcmc", "mcmc-mix-", "mcmc-mix-1.5", "mcmc-mix-0.50", "smc-0", "smc-01", "smc-awrs-", "smc-x", "GCD"} {
		if _, err := Parse(name); err == nil {
			t.Errorf("Parse(%q) accepted", name)
		}
	}
	m, _ := Parse("smc-awrs-8")
	if s, ok := m.(SMC); !ok || s.Options.Particles != 8 || !s.Options.AWRS {
		t.Errorf("smc-awrs-8 = %+v", m)
	}
	if m, _ := Parse("mcmc-mix-0.25"); m != (MCMC{mcmc.Mix{P: 0.25}}) {
		t.Errorf("mcmc-mix-0.25 = %+v", m)
	}
}

func TestShape(t *testing.T) {
	// steps, units at K = 5, rejects, learns
	want := map[string]string{
		"gcd": "0 1 false false", "rejection": "0 1 true false", "asap": "2 5 false false",
		"mcmc-uniform": "1 6 false false", "cars": "0 1 true true", "ars": "0 1 true true", "rsft": "0 1 true false", "smc-3": "0 3 false false",
	}
	for name, w := range want {
		m, err := Parse(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(m.Steps(), Units(m, 5), Rejects(m), Learns(m)); got != w {
			t.Errorf("%s: %s, want %s", name, got, w)
		}
	}
	user := MCMC{Proposal: mcmc.ProposalFunc(func(x *sample.Record, w []float64) { w[0] = 1 })}
	if m, err := Resolve("mcmc-mine", map[string]Method{"mcmc-mine": user}); err != nil || m.Steps() != Chain {
		t.Errorf("Resolve(user) = %v, %v", m, err)
	}
	if lo, hi := Samples.Range(4); lo != 1 || hi != 4 {
		t.Errorf("Samples.Range(4) = %d, %d", lo, hi)
	}
}

// Exact's rs learns nothing: only cars and ars continue a trie.
func TestExactLearns(t *testing.T) {
	for v, want := range map[sample.Variant]bool{sample.RS: false, sample.RSFT: false, sample.ARS: true, sample.CARS: true} {
		if got := Learns(Exact{Variant: v}); got != want {
			t.Errorf("Learns(Exact{%v}) = %v, want %v", v, got, want)
		}
	}
}

// A user's method declares its traits by implementing the optional
// interfaces; one that implements none gets the plain answers.
func TestTraits(t *testing.T) {
	plain := userMethod{}
	if Rows(plain, 3) != 3 || Units(plain, 7) != 1 || Rejects(plain) || Learns(plain) {
		t.Errorf("plain user method: rows %d, units %d, rejects %v, learns %v", Rows(plain, 3), Units(plain, 7), Rejects(plain), Learns(plain))
	}
	rich := richMethod{}
	if Rows(rich, 3) != 6 || Units(rich, 7) != 14 || !Rejects(rich) || !Learns(rich) {
		t.Errorf("rich user method: rows %d, units %d, rejects %v, learns %v", Rows(rich, 3), Units(rich, 7), Rejects(rich), Learns(rich))
	}
}

type userMethod struct{}

func (userMethod) Steps() Steps { return None }
func (userMethod) Draw(Request) (Result, error) {
	return Result{}, nil
}

type richMethod struct{ userMethod }

func (richMethod) RowsPerRun() int { return 2 }
func (richMethod) Units(K int) int { return 2 * K }
func (richMethod) Rejects() bool   { return true }
func (richMethod) Learns() bool    { return true }
