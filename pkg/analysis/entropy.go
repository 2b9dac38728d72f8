package analysis

import (
	"fmt"
	"math"

	"github.com/gasplab/gasp/pkg/runs"
)

// GrammarProfile describes, per generated token, how a model meets a
// grammar along GCD's paths, from GCD's records alone (their log P and log
// P_GCD): how spread the grammar-masked next-token distribution is, and
// how much of the model's mass the grammar's mask removes. A model that is
// peaked and mostly within the grammar has both near 0: GCD then barely
// distorts it, and the samplers differ little. The embedded model and
// Llama-3.1-8B differ here (notebook 01).
//
// By the chain rule, −log P_GCD(x) = Σ_t −log P_GCD(x_t | x_<t), whose
// expectation over GCD's samples is Σ_t E[H_t], H_t the entropy of
// P_GCD(· | x_<t): Entropy, the ratio of the two sums over the records,
// estimates the mean of H_t over the tokens GCD generates. Likewise
// log P_GCD(x) − log P(x) = Σ_t −log Z_t, Z_t the mass of P(· | x_<t) on
// the tokens the grammar allows: Removed is the mean of −log Z_t.
type GrammarProfile struct {
	Records int     // GCD records read
	Tokens  float64 // mean tokens per record, the end-of-sequence token included where it ended one
	Entropy float64 // nats per token: Σ −log P_GCD(x) / Σ tokens
	Removed float64 // nats per token: Σ (log P_GCD(x) − log P(x)) / Σ tokens
	Valid   int     // records that are sentences of the grammar
}

// Profile returns the GrammarProfile of GCD records (k = 0 records of
// method gcd; the caller selects them). A record with log P or log P_GCD
// of −∞ (probability zero: GCD never draws one) is an error naming it.
func Profile(recs []runs.Record) (GrammarProfile, error) {
	var p GrammarProfile
	var tokens, negLogQ, removed float64
	for _, r := range recs {
		if math.IsInf(r.LogP, -1) || math.IsInf(r.LogPGCD, -1) {
			return p, fmt.Errorf("analysis: record (task %q, method %q, k %d, run %d) has probability zero: not a GCD sample",
				r.Task, r.Method, r.K, r.Run)
		}
		n := float64(len(r.IDs))
		if r.Status == runs.StatusComplete {
			n++ // its end-of-sequence token
		}
		tokens += n
		negLogQ -= r.LogPGCD
		removed += r.LogPGCD - r.LogP
		p.Records++
		if r.Valid {
			p.Valid++
		}
	}
	if tokens == 0 {
		return p, fmt.Errorf("analysis: %d records, no token: no profile", len(recs))
	}
	p.Tokens = tokens / float64(p.Records)
	p.Entropy = negLogQ / tokens
	p.Removed = removed / tokens
	return p, nil
}
