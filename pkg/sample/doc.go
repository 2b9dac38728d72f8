// Package sample draws completions from a language model under a grammar:
// grammar-constrained decoding (GCD), rejection sampling, ASAp (Park et al.
// 2024, "Grammar-Aligned Decoding"), exact samples of P^G by CARS (Parys et
// al. 2025, "Constrained Adaptive Rejection Sampling") and its variants RS,
// RSFT and ARS, and sequential Monte Carlo with grammar-masked extensions
// (Loula et al. 2025), optionally with AWRS token draws (Lipkin et al.
// 2025). Every sampler runs many rows in lockstep, one batched
// lm.Batch.Next call per token step.
//
// A completion is a Record: its tokens and, per token, everything
// Metropolis–Hastings needs later without a second pass over the model: the
// raw log P(t|u) under the configured lm.Transform, the log-probability the
// sampler actually drew it with (for GCD, the grammar-masked and
// renormalised P_GCD(t|u)), and the entropies of the masked and of the raw
// next-token distributions.
//
//	cfg := sample.Config{Masker: masker, Transform: lm.Transform{TopP: 0.9}, MaxNew: 512}
//	recs, stats, err := cfg.GCD(model, prompt, 100, rand.New(rand.NewPCG(1, 2)))
//	for _, r := range recs {
//		if r.Valid() { ... r.Tokens, r.LogProb() ... }
//	}
//
// The ...Each variants (GCDEach, ASApEach, RejectionEach) take one random
// source per run: run i's output then depends on rands[i] alone, not on the
// other rows of its batch, so that a run can be reproduced by itself from
// its seed (NewRand, DeriveSeed). Record.Evals counts the model evaluations of
// one row, and Config.Ended reports each finished completion (progress).
//
// # One decoding loop
//
// Every sampler runs on one lockstep driver: the running rows of an
// lm.Batch step together, one batched Next call per token step, their
// next-token distributions (Dist: P and P masked by the grammar) computed
// on several goroutines when the step is large. A sampler plugs in only
// what differs, as a method of two parts: how a row draws its token from
// its Dist (GCD from P masked; rejection sampling from P itself; ASAp,
// ARS and CARS from P reweighted by the mass a learnt trie has removed;
// SMC by AWRS if asked), and what happens, in row order, once it is drawn:
// whether the row's completion ended, and then whether the row idles or
// goes on with the next completion (the next Job of Stream, which MCMC
// drives; a new attempt; the run's next sample). SMC also regroups its
// particles between steps, when it resamples. Tokens are drawn by Pick,
// each row from its own random source, so a row's draws do not depend on
// the others.
//
// # Exact samples and SMC
//
// Config.CARS returns samples distributed exactly as P^G, whatever the
// variant; the adaptive ones (ARS, CARS) learn in a Trie shared by all rows
// of a call and by later calls (Trie.WriteTo and ReadTrie save and restore
// it), so that acceptance grows as the run goes on. Record.Rejections and
// Record.Evals give the attempts and LM evaluations each sample cost.
//
//	rs := sample.RejectionSampler{Variant: sample.CARS, Trie: sample.NewTrie()}
//	out, stats, err := cfg.CARS(model, prompt, rs, k, rands) // out[i]: run i's k samples
//
// Config.SMC returns, per run, a weighted set of particles (SMCRun) whose
// estimates converge to P^G as the number of particles grows, and an
// unbiased estimate of P(L); SMCRun.Pick draws one particle by weight.
//
// # Reproducing runs
//
// A model's batched arithmetic may round differently with the batch size
// or a row's place in the batch (GoMLX's SIMD kernels do), so a run is
// reproduced bit for bit only on the same row of a batch of the same size;
// elsewhere its tokens are the same but for near-ties, and its scores equal
// to rounding. The ...Each samplers therefore accept nil sources: a nil
// source leaves its row idle, so that a caller redrawing some runs of a
// batch (resuming an interrupted one) keeps each run on its row of a batch
// of the original size.
//
// # The length cap
//
// MaxNew bounds the tokens of a completion, its end-of-sequence token
// included. A completion that reaches MaxNew tokens without one is flagged
// Capped, counted in Stats, and never reported as valid. Samplers that
// promise the grammar-aligned target P^G(x) ∝ P(x)·1[x ∈ L(G)] (rejection
// sampling, ASAp in the limit, and MCMC built on this package) therefore
// target P^G conditioned on |x| ≤ MaxNew, that is P(x)·1[x ∈ L(G), |x| ≤
// MaxNew], normalised. GCD's output, once capped runs are discarded, is
// P_GCD conditioned on the same event.
//
// # Small temperatures
//
// At a small temperature (0.005 on a real model) every allowed token's P
// may underflow in linear space, and P(L) with it, though P restricted to
// the grammar, and P^G, are well defined. The samplers therefore work in
// log space where it matters: Dist keeps every allowed token with log P >
// −Inf and computes P_GCD in log space where the allowed mass is below
// linearFloor; ASAp's c̃ and the trie of ARS and CARS are kept as
// log-masses, recomputed at each visit as a sum of terms (never a
// difference, which cancels); their draws weigh tokens in log space; and
// AWRS draws without replacement by Gumbel keys. Where the linear
// arithmetic is exact enough (ordinary temperatures), GCD, rejection
// sampling, RSFT, ASAp, MCMC and SMC without AWRS draw the same bits as
// before these changes.
//
// A prefix after which no allowed token has positive probability (possible
// with top-k or top-p, or when no token spells what the grammar needs) ends
// the completion as a DeadEnd, likewise invalid: every grammatical
// continuation of it has probability zero under P.
package sample
