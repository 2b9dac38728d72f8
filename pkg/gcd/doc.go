// Package gcd does grammar-constrained decoding: given a grammar and a
// language model's vocabulary, it computes after any prefix the exact set of
// tokens that keep the text inside the grammar's language.
//
// A token is allowed iff its bytes extend the prefix to a viable prefix (one
// that some sentence of the grammar starts with); an end-of-sequence token iff
// the prefix is a sentence; other special tokens never. Matching is over
// bytes, so a token that ends inside a multi-byte UTF-8 character is judged
// exactly, and a token that cannot be part of valid UTF-8 at that point is not
// allowed.
//
// Use:
//
//	g, _, err := grammar.CompileFile("grammar/json.gbnf", grammar.Options{})
//	vocab, err := gcd.LoadVocab("tokenizer.json") // Hugging Face byte-level BPE
//	trie := gcd.NewTrie(vocab)                    // once per vocabulary
//	masker := gcd.NewMasker(earley.New(g), vocab, trie)
//	st := masker.NewState()
//	for !st.Ended() {
//		allowed := st.Allowed() // a Bitset over token ids; do not modify
//		id := pick(allowed)     // e.g. sample from the LM restricted to allowed
//		if err := st.Advance(id); err != nil { ... }
//	}
//	st.Rollback(n) // back to the first n tokens, O(1)
//
// How masks are computed, and why it is fast, is described on Masker. The
// package is written here rather than taken from a library: no Go library
// computes exact masks for context-free grammars, and the engines that do
// (llama.cpp, XGrammar, llguidance) are C++ or Rust.
package gcd
