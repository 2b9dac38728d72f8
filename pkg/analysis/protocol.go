package analysis

import (
	"fmt"

	"github.com/gasplab/gasp/pkg/runs"
)

// Protocol is how the KL of a method is estimated from a run store: gasp's
// (Gasp, the default) or the authors' scripts' (Authors). The package
// comment gives both with their formulas.
type Protocol string

const (
	Gasp    Protocol = "gasp"
	Authors Protocol = "authors"
)

// ParseProtocol returns the protocol named s ("" is Gasp).
func ParseProtocol(s string) (Protocol, error) {
	switch Protocol(s) {
	case "", Gasp:
		return Gasp, nil
	case Authors:
		return Authors, nil
	}
	return "", fmt.Errorf("analysis: unknown protocol %q (want gasp or authors)", s)
}

// Other returns the other protocol, for a side-by-side report.
func (p Protocol) Other() Protocol {
	if p == Authors {
		return Gasp
	}
	return Authors
}

// keeps reports whether a record is a sample of p̂ and of S: a valid record
// (gasp), or one that emitted an EOS (authors: they drop the samples that
// never did).
func (p Protocol) keeps(r *runs.Record) bool {
	if p == Authors {
		return r.Status == runs.StatusComplete
	}
	return r.Valid
}

// counts reports how many of recs enter p's estimator.
func (p Protocol) counts(recs []runs.Record) Count {
	c := Count{Records: len(recs)}
	for i := range recs {
		if p.keeps(&recs[i]) {
			c.Valid++
		}
	}
	return c
}

// view returns the records of a task by method and k as p compares them.
// Under Authors, the GCD line is the Restart chains' starting states
// (mcmc-restart at k = 0) when the task has them; from is what the GCD
// line is ("" when the task has none).
func (d *Data) view(task string, p Protocol) (v map[string]map[int][]runs.Record, from string) {
	v = make(map[string]map[int][]runs.Record, len(d.series[task]))
	for m, ks := range d.series[task] {
		v[m] = ks
	}
	if _, ok := v[GCD]; ok {
		from = GCD
	}
	if p == Authors {
		if starts := v[Restart][0]; len(starts) > 0 {
			v[GCD] = map[int][]runs.Record{0: starts}
			from = Restart + " k=0"
		}
	}
	return v, from
}

// Restart is the method whose chains' starting states are the authors' GCD.
const Restart = "mcmc-restart"
