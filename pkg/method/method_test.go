package method

import (
	"testing"

	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/sample"
)

func TestParse(t *testing.T) {
	for _, name := range append(Names, "mcmc-mix-0.5", "mcmc-mix-1", "smc-1", "smc-awrs-8") {
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
	cases := []struct {
		name           string
		steps          Steps
		units          int
		rejects, learn bool
	}{
		{"gcd", None, 1, false, false},
		{"rejection", None, 1, true, false},
		{"asap", Samples, 5, false, false},
		{"mcmc-uniform", Chain, 6, false, false},
		{"cars", None, 1, true, true},
		{"rsft", None, 1, true, false},
		{"smc-3", None, 3, false, false},
	}
	for _, c := range cases {
		m, err := Parse(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if m.Steps() != c.steps || Units(m, 5) != c.units || Rejects(m) != c.rejects || Learns(m) != c.learn {
			t.Errorf("%s: steps %v, units %d, rejects %v, learns %v", c.name, m.Steps(), Units(m, 5), Rejects(m), Learns(m))
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
