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
// its seed (NewRand, RunSeed). Record.Evals counts the model evaluations of
// one row, and Config.Ended reports each finished completion (progress).
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
// A prefix after which no allowed token has positive probability (possible
// with top-k or top-p, or when no token spells what the grammar needs) ends
// the completion as a DeadEnd, likewise invalid: every grammatical
// continuation of it has probability zero under P.
package sample
