package experiment

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/sample"
)

// Kinds of method.
const (
	KindGCD       = "gcd"
	KindRejection = "rejection"
	KindASAp      = "asap"
	KindMCMC      = "mcmc"
	KindExact     = "exact" // cars, ars, rsft: sample.Config.CARS
	KindSMC       = "smc"
)

// Method is a method name parsed: what sampler it runs, and with what.
type Method struct {
	Name     string
	Kind     string
	Proposal mcmc.Proposal     // KindMCMC
	Variant  sample.Variant    // KindExact
	SMC      sample.SMCOptions // KindSMC
}

// DefaultParticles is the number of particles of the method "smc".
const DefaultParticles = 10

// ExactBudget bounds the attempts of a run of cars, ars or rsft in an
// experiment; a run that spends it records its last attempt, not valid.
const ExactBudget = 5000

// ParseMethod parses a method name:
//
//	gcd, rejection, asap
//	mcmc-uniform, mcmc-priority, mcmc-restart
//	mcmc-priority-pp Priority as the paper defines it (perplexity of P(·|x_1:i))
//	mcmc-mix-P       Restart with probability P in [0, 1], else Priority
//	cars, ars, rsft  exact samples of P^G (sample.Config.CARS), one per run
//	smc, smc-N       SMC with N particles (10 for "smc"), ESS threshold ½;
//	smc-awrs-N       the same with AWRS token draws; one particle per run,
//	                 drawn ∝ its weight
func ParseMethod(name string) (Method, error) {
	m := Method{Name: name}
	bad := func() (Method, error) {
		return Method{}, fmt.Errorf("unknown method %q (want gcd, rejection, asap, mcmc-uniform, mcmc-priority, mcmc-restart, mcmc-priority-pp, mcmc-mix-P, cars, ars, rsft, smc, smc-N or smc-awrs-N)", name)
	}
	switch name {
	case "gcd", "rejection", "asap":
		m.Kind = name
		return m, nil
	case "mcmc-uniform", "mcmc-priority", "mcmc-restart", "mcmc-priority-pp":
		m.Kind = KindMCMC
		m.Proposal = map[string]mcmc.Proposal{"mcmc-uniform": mcmc.Uniform{}, "mcmc-priority": mcmc.Priority{},
			"mcmc-restart": mcmc.Restart{}, "mcmc-priority-pp": mcmc.PriorityPP{}}[name]
		return m, nil
	case "cars", "ars", "rsft":
		m.Kind = KindExact
		m.Variant, _ = sample.ParseVariant(name)
		return m, nil
	case "smc":
		m.Kind, m.SMC = KindSMC, sample.SMCOptions{Particles: DefaultParticles, ESS: 0.5}
		return m, nil
	}
	if p, ok := strings.CutPrefix(name, "mcmc-mix-"); ok {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || !(f >= 0 && f <= 1) || strconv.FormatFloat(f, 'g', -1, 64) != p {
			return bad()
		}
		m.Kind, m.Proposal = KindMCMC, mcmc.Mix{P: f}
		return m, nil
	}
	if rest, ok := strings.CutPrefix(name, "smc-"); ok {
		awrs := false
		if r, ok := strings.CutPrefix(rest, "awrs-"); ok {
			awrs, rest = true, r
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 || n > 1<<16 || strconv.Itoa(n) != rest {
			return bad()
		}
		m.Kind, m.SMC = KindSMC, sample.SMCOptions{Particles: n, ESS: 0.5, AWRS: awrs}
		return m, nil
	}
	return bad()
}
