package method

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/sample"
)

// Names returns the built-in methods with fixed names; the parametrised
// ones are Patterns.
func Names() []string {
	return []string{"gcd", "asap", "mcmc-uniform", "mcmc-priority", "mcmc-restart", "mcmc-priority-pp", "rejection", "cars", "ars", "rsft", "smc"}
}

// Patterns returns the forms of the parametrised built-in methods' names
// (P a probability, N a count; see Parse).
func Patterns() []string { return []string{"mcmc-mix-P", "smc-N", "smc-awrs-N"} }

// List is every built-in method's name or name pattern, comma-separated:
// what a usage message or an error lists.
func List() string { return strings.Join(append(Names(), Patterns()...), ", ") }

// DefaultParticles is the number of particles of the method "smc".
const DefaultParticles = 10

// fixed returns the built-in method of a fixed name.
func fixed(name string) (Method, bool) {
	switch name {
	case "gcd":
		return GCD{}, true
	case "rejection":
		return Rejection{}, true
	case "asap":
		return ASAp{}, true
	case "mcmc-uniform":
		return MCMC{mcmc.Uniform{}}, true
	case "mcmc-priority":
		return MCMC{mcmc.Priority{}}, true
	case "mcmc-restart":
		return MCMC{mcmc.Restart{}}, true
	case "mcmc-priority-pp":
		return MCMC{mcmc.PriorityPP{}}, true
	case "cars", "ars", "rsft":
		v, err := sample.ParseVariant(name)
		return Exact{v}, err == nil
	case "smc":
		return SMC{sample.SMCOptions{Particles: DefaultParticles, ESS: 0.5}}, true
	}
	return nil, false
}

// Parse returns the built-in method of a name:
//
//	gcd, rejection, asap
//	mcmc-uniform, mcmc-priority, mcmc-restart
//	mcmc-priority-pp Priority as the paper defines it (perplexity of P(·|x_1:i))
//	mcmc-mix-P       Restart with probability P in [0, 1], else Priority
//	cars, ars, rsft  exact samples of P^G (sample.Config.CARS), one per run
//	smc, smc-N       SMC with N particles (10 for "smc"), ESS threshold ½;
//	smc-awrs-N       the same with AWRS token draws
func Parse(name string) (Method, error) {
	if m, ok := fixed(name); ok {
		return m, nil
	}
	if p, ok := strings.CutPrefix(name, "mcmc-mix-"); ok {
		f, err := strconv.ParseFloat(p, 64)
		if err == nil && f >= 0 && f <= 1 && strconv.FormatFloat(f, 'g', -1, 64) == p {
			return MCMC{mcmc.Mix{P: f}}, nil
		}
	}
	if rest, ok := strings.CutPrefix(name, "smc-"); ok {
		r, awrs := strings.CutPrefix(rest, "awrs-")
		n, err := strconv.Atoi(r)
		if err == nil && n >= 1 && n <= 1<<16 && strconv.Itoa(n) == r {
			return SMC{sample.SMCOptions{Particles: n, ESS: 0.5, AWRS: awrs}}, nil
		}
	}
	return nil, fmt.Errorf("unknown method %q (want one of %s)", name, List())
}

// Resolve returns the method a name stands for: user's, when it names
// one, else the built-in one (Parse).
func Resolve(name string, user map[string]Method) (Method, error) {
	if m, ok := user[name]; ok && m != nil {
		return m, nil
	}
	return Parse(name)
}
