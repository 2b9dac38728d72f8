// Package lm is the only view the samplers have of a language model: batched
// next-token logits for many rows that share a prompt, each row its own token
// sequence after it, with truncation that keeps the computed prefix.
//
// A model implements Model, whose Session has the shape of a batched KV cache.
// pkg/llama's Session has exactly this shape; model.LM (package model) is the
// one adapter that makes a llama.Model an lm.Model. Decorators wrap any Model:
// Finite turns a NaN or infinite logit into an error, and Timed adds the time
// and number of the sessions' calls to a Usage.
//
//	m := lm.Finite(lm.Timed(weights, &usage))
//
// Samplers never use a Session directly: they use a Batch, which
// keeps each row's tokens, evaluates lazily only what is missing from the
// cache, reuses the kept prefix after a truncation, and counts token
// evaluations the way a real model spends them.
//
//	b, err := lm.NewBatch(model, prompt, rows) // prefill: len(prompt) evaluations
//	logits, err := b.Next([]int{0, 1})         // next-token logits of rows 0 and 1
//	b.Append(0, tok)                           // row 0 takes a token (evaluated at the next Next)
//	b.Truncate(1, 3)                           // row 1 keeps its first 3 tokens
//	n := b.Evals()                             // token evaluations so far
//
// The distribution P that every sampler uses is defined once, by Transform:
// temperature, then top-k, then top-p, then a softmax. Sampling and scoring
// both go through it, so the probabilities a sampler records are exactly the
// ones it sampled from.
//
// Table and NewBigram are exact test models: their next-token distribution is
// a deterministic function of the prefix, so sequence probabilities have a
// closed form, and they count evaluations like a real model (a truncated row
// does not re-evaluate its kept prefix).
package lm
