// Package mcmc turns grammar-constrained decoding into a grammar-aligned
// sampler by Metropolis–Hastings, as in "Constrained Sampling for Language
// Models Should Be Easy: An MCMC Perspective" (Alg. 1). The target is P^G(x)
// ∝ P(x)·1[x ∈ L(G)], under the length cap of sample.Config.
//
// Each chain starts from a valid GCD sample x. A step draws a cut i from a
// truncation distribution p_pos^x over {0, …, |x|−1} (|x| counts the
// end-of-sequence token), keeps x[:i], regenerates the rest with GCD into y,
// and accepts y with probability
//
//	α = min(1, P(y)·q(x|y) / (P(x)·q(y|x))),
//	q(y|x) = Σ_{i=0}^{min(lcp(x,y), |x|−1)} p_pos^x(i) · Π_{j≥i} P_GCD(y_j | y_{<j}),
//
// (LogQ). Every term comes from the per-token scores that GCD stored in the
// sample.Records, so scoring needs no second pass over the model. y == x is
// accepted; a y that hits the length cap is rejected.
//
// # Use
//
//	cfg := mcmc.Config{
//		Sample:   sample.Config{Masker: masker, Transform: lm.Transform{}, MaxNew: 512},
//		Proposal: mcmc.Priority{},
//		Steps:    10,
//	}
//	res, err := mcmc.Run(model, prompt, 100, cfg, rand.New(rand.NewPCG(1, 2)))
//	samples := res.Final(10) // MCMC(10): each chain's state after 10 steps
//	fmt.Println(res.Stats.EvalsPerStep(), res.Stats.AuthorsEvalsPerStep())
//
// The chains share one lm.Batch, one row each, and advance together: each
// token step of every chain's regeneration is one batched call to the model.
// A cut keeps the row's cached prefix, so a step costs about as many token
// evaluations as it regenerates (Stats documents the exact count, and the
// count the authors' implementation would need for the same run). After a
// rejection the row holds the rejected y; a next cut beyond lcp(x, y)+1
// re-evaluates ("restores") x's tokens up to it, which Stats counts
// (Restored, RestoredSteps of AfterRejection steps); on the embedded model
// that was about 5 % of a step's evaluations.
//
// RunEach takes one random source per chain instead, e.g.
// sample.NewRand(sample.DeriveSeed(seed, i)): a chain then depends on its own
// source alone, whichever chains share its batch, and can be reproduced by
// itself. Chain.EvalsAt counts one chain's own evaluations.
//
// # Proposals
//
//	Uniform     p(i) = 1/|x|                       paper "Uniform", authors' "prefix"
//	Priority    p(i) ∝ exp(H_i) − 1                the authors' code; H_i: entropy of P_GCD(·|x_{1:i})
//	PriorityPP  p(i) ∝ exp(H(P(·|x_{1:i})))         the paper's text: perplexity of the model
//	Restart     p(0) = 1                           independent GCD proposals
//	Mix{P: p}   Restart with probability p, else Priority (the authors' "mix-p"), as a mixture of kernels
//
// The paper proves convergence when p_pos^x(0) > 0 (App. D). Priority has
// p(0) = 0 whenever the first token is forced; that does not harm it,
// because cutting where the grammar allows a single token is the same move
// as cutting one token later. A proposal with p(0) = 0 at a real branch
// point can never change the first token and does not converge.
//
// # Writing a proposal
//
// A Proposal gives non-negative weights to the cuts of the current record;
// Run normalises them, draws the cut, and evaluates the same method on the
// proposal y for the reverse move. It may use anything in the record: the
// tokens, per-token log-probabilities and entropies. For example, a
// proposal that resamples only the last N tokens, restarting with
// probability R so that the chain still converges:
//
//	type Tail struct {
//		N int     // cut among the last N positions
//		R float64 // probability of a restart
//	}
//
//	func (t Tail) Weights(x *sample.Record, w []float64) {
//		n := len(w) // len(x.Tokens): the cuts 0 … n−1
//		lo := max(0, n-t.N)
//		for i := lo; i < n; i++ {
//			w[i] = (1 - t.R) / float64(n-lo)
//		}
//		w[0] += t.R
//	}
//
//	cfg.Proposal = Tail{N: 8, R: 0.1}
//
// Weights must depend on x alone. A proposal that picks among whole MH
// kernels each step (as Mix does) implements Kernels as well.
//
// Summing q over every cut matters only for proposals like Tail, whose
// weight at a cut depends on more than the prefix before it. For Uniform,
// Restart, Priority and PriorityPP the weights at the cuts up to lcp(x, y)
// are the same function of the shared prefix for x and y, up to each one's
// normaliser, and the ratio q(x|y)/q(y|x) then equals what the drawn cut's
// term alone gives (the tests check both).
//
// Run is one way to drive the chains; LogQ, LogAlpha and Positions are the
// pieces, for drivers of one's own.
package mcmc
