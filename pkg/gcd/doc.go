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
//	vocab, err := gcd.LoadVocab("tokenizer.json") // Hugging Face BPE: byte-level or SentencePiece
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
//
// # What is precomputed, and what is cached
//
// Once per vocabulary, NewTrie builds the byte trie of the ordinary tokens,
// marking where every path below a node is valid UTF-8, and a copy of it
// relabelled by a fixed partition of the bytes that most grammars' classes
// are unions of (labels.go), with its edges indexed by label (leavers.go),
// the tokens below each of the root's large children as a Bitset, and the
// run table of the characters a JSON string writes as themselves
// (runs.go). What a walk over that copy finds that depends on no grammar,
// the walks of region shapes (region.go), other run tables and the tokens
// over a universe's classes (universe.go), is kept with it on first use,
// for every Masker of the vocabulary.
// Once per grammar, earley.New computes the grammar's byte classes, FOLLOW
// sets over them, the prediction closure of every rule and the bounded
// repetitions; NewMasker walks that shared trie, mapping labels to classes,
// or, where a class splits a label, relabels the trie by the grammar's
// classes and indexes it; it builds run tables for character classes that
// bounded repetitions repeat (runs.go) and computes the start State's mask.
// Nothing else is computed ahead: which positions a sampler will visit is
// not known before it does.
//
// Everything else is computed on first use and cached until MaxCacheBytes is
// reached, when the caches are emptied: Earley States and transitions, one
// mask per State (and per room key inside a bounded repetition), the own
// parts of masks by context key (context.go, parts.go), the tokens a
// loop's core lacks (core.go), walks from views of scan items, the regions
// of States (region.go), UTF-8 shortcuts (utf8.go), the universes of
// States and the tables of tokens over a universe's or a loop's
// characters (universe.go). The first State of each room key (roomRep) is kept
// with the States, never emptied. Steps whose States are cached cost a map
// look-up and allocate nothing. What each of these costs, in memory and
// time, on the mask workloads is in BENCHMARKS.md ("Masks: what is
// precomputed and what it costs"), with the commands that measure it.
package gcd
