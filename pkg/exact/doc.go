// Package exact is an oracle for samplers on finite languages: with an exact
// model (lm.Table) and a grammar whose sentences within the length cap can
// be listed, it computes the distributions the samplers should produce, so
// that their output can be tested in distribution and their convergence
// measured without sampling error.
//
//	lang, err := exact.Enumerate(model, prompt, cfg, 100000) // every GCD path
//	lang.Target            // P^G: P renormalised over the sentences
//	lang.GCD               // GCD's output distribution (valid runs)
//	dists, err := lang.Chain(mcmc.Uniform{}, 10)  // MCMC after 0…10 steps, from GCD
//	exact.TV(dists[10], lang.Target)
//	lang.Test(records, dists[10])                 // chi-square goodness of fit
//
// The MCMC transition matrix (Lang.Transition) is built from the proposal's
// truncation distribution (mcmc.Positions) and q written from its
// definition (Q), independently of mcmc.LogQ. It starts from GCD's
// distribution (Alg. 1 starts from a GCD sample), rejects proposals that
// leave the language within the cap, and mixes the matrices of the
// components of a proposal that implements mcmc.Kernels.
//
// ChiSquare pools cells expected fewer than 5 draws; ChiSquareSF is the
// chi-square survival function (regularized upper incomplete gamma). Toys
// returns small problems with multi-byte tokens and strongly biased GCD, for
// tests and experiments.
package exact
