// Package lm is the only view the samplers have of a language model: batched
// next-token logits for many rows that share a prompt, each row its own token
// sequence after it, with truncation that keeps the computed prefix.
//
// A model implements Model, whose Session has the shape of a batched KV cache.
// pkg/llama's Session has exactly this shape, so wrapping a llama.Model is a
// few lines:
//
//	type llamaLM struct{ *llama.Model }
//
//	func (m llamaLM) VocabSize() int { return m.Config().VocabSize }
//
//	func (m llamaLM) NewSession(rows int) (lm.Session, error) {
//		s, err := m.Model.NewSession(rows)
//		if err != nil {
//			return nil, err // not a typed nil in the interface
//		}
//		return s, nil
//	}
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
