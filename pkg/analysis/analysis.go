// Package analysis computes the statistics of the paper's §4.1 and appendix E
// from a run store (pkg/runs): the KL estimator against a per-task reference
// distribution, bootstrap confidence intervals, geometric-mean KL-reduction
// ratios, per-task monotonicity summaries and rejection acceptance rates, and
// writes them as tables (CSV, Markdown) and figures (SVG).
//
// # The KL estimator
//
// The true target P^G is unknown for a real model, so the paper estimates KL
// against a reference built from the samples themselves (see NewReference). For
// one task, let S be the set of distinct valid samples observed from every
// method of the task, at every k. The reference is P renormalised over S:
//
//	ref(x) = exp(log P(x)) / Σ_{x' ∈ S} exp(log P(x')).
//
// A method at one k has one record per run; their empirical distribution p̂
// gives
//
//	KL(p̂ ‖ ref) = Σ_x p̂(x) · log(p̂(x) / ref(x)),
//
// which equals KL to P^G up to a constant that is the same for every method
// of the task (paper §4.1).
//
//	ref := analysis.NewReference(allRecordsOfTheTask)
//	kl, err := ref.KL(mcmcUniformAtK10)
//	lo, hi, err := ref.Bootstrap(mcmcUniformAtK10, 500, 1)
//
// A sample is its completion token ids and the end-of-sequence token that
// ended it (Record.IDs, Record.EOS): a model may have several EOS tokens
// (Llama-3.1-Instruct three), GCD allows each at a complete prefix, and w
// ended by <|eot_id|> and by <|end_of_text|> are two samples with their own
// P. Records of schema ≤ 2 did not record their EOS (runs.NoEOS): among
// them, records with the same ids whose log P are within LegacyTolerance
// are one sample (the same ending, up to rounding) and farther ones are
// different endings; a record without EOS within LegacyTolerance of a
// sample with a recorded EOS is that sample. The prompt is the task's.
// Only valid records (Record.Valid: a complete sentence of the
// grammar within the length cap) are samples of P^G: capped and dead-end
// completions and rejected rejection-sampling draws enter neither S nor p̂.
// A method's p̂ is therefore its distribution conditioned on validity, as for
// GCD in the paper, whose capped runs are discarded; Count reports how many
// records were dropped. Two records of the same sample may carry log P values
// that differ by floating-point rounding (batched evaluation); the reference
// uses the smallest, so that it does not depend on the order of the records.
//
// The bootstrap resamples the valid runs with replacement (the reference
// stays fixed), recomputes KL, and reports the 2.5th and 97.5th percentiles,
// interpolated linearly between order statistics as numpy.percentile does.
// Its random source is seeded, so intervals are reproducible.
//
// # Protocols
//
// Options.Protocol chooses between two estimation protocols; AnalyzeBoth
// computes both, for a side-by-side report.
//
// Gasp (the default) is the above: S is the distinct valid samples among
// the stored records (the chains' states at every k, every other method's
// samples); a point is the plug-in estimate KL(p̂ ‖ ref); its band is the
// bootstrap percentile interval; the GCD line is the gcd runs.
//
// Authors reproduces the authors' analysis scripts:
//
//   - S also holds the proposal y of every MH step (Record.Proposal, kept
//     when the experiment sets keep_proposals): S = {x_t, y_t of every
//     step of every chain of every method} ∪ {every other sample};
//   - p̂ and S hold the samples that emitted an EOS (Status "complete");
//     the others are dropped;
//   - a point is the mean of the bootstrap KLs, (1/B) Σ_b KL(p̂_b ‖ ref),
//     with B = Options.Resamples (one of their scripts uses 500, their
//     plotting script 50), not the plug-in estimate; the band is the same
//     percentile interval;
//   - the GCD line is the Restart chains' starting states (mcmc-restart at
//     k = 0) on the tasks that have them, else the gcd runs
//     (TaskResult.GCDFrom says which).
//
// Both take MCMC(k) as the state after k steps, as the authors' plotting
// script does (index k); their other script's reading of index 9 as k = 10
// is not reproduced. A store without proposals gives a reduced authors'
// protocol (S without the rejected proposals); TaskResult.Proposals
// counts the proposals that entered S.
//
// # The true distance
//
// Where exact samples of P^G exist (CARS, pkg/sample), AnalyzeTrue measures
// every (task, method, k) against them instead (Exact: TV on the observed
// support, KL with add-one smoothing, bootstrap over both sample sets, and
// the floor an exact sampler with as many runs would score), beside the
// proxy KL, and reports whether the proxy ranks the methods as the true
// distance does (TrueReport.Means, MeanTau).
package analysis
