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
// # What is precomputed, when, and what it costs
//
// Once per vocabulary, NewTrie builds the byte trie of the ordinary tokens
// (Llama 3: 274,521 nodes, about 5 MB) and marks, by node, whether every
// path below it is valid UTF-8 from a character boundary (a byte a node).
// A Vocab keeps its tokens' bytes and names in two byte arrays, so that a
// garbage collection during a step has no pointer per token to trace.
//
// Once per grammar, earley.New computes the grammar's byte classes; by
// rule, the classes that can follow it (FOLLOW sets over byte classes, 32
// bytes a rule), which tell when a walk that escaped a view is again exact
// (see Masker); and by rule, the items its prediction adds (the closure
// under prediction, which every Earley step then adds as a block), and the
// rules and items of bounded repetitions X{m,n} and of runs of a character
// class X{m} (see earley.Machine.InBoundedRepetition): well under a
// millisecond. NewMasker
// (the rest of what "gasp bench masks" reports as compile time) relabels
// the trie by those classes, merging the tokens that no grammar position
// can tell apart (74k to 220k nodes on the workloads of data/bench/masks),
// and records for every node the set of byte classes in its subtree (16
// bytes a node: classes 0 to 127, one bit for the rest), the length of its
// longest path and the most characters on a path up to the first byte of
// a multi-byte character (a byte each) and its UTF-8 mark, and the set of
// the trie's tokens (16 KB, the start of an inverted walk): 1.5 to 4.1 MB
// and 10 to 18 ms of one core on those workloads, of which the relabelling
// is most. For each ASCII character class that a bounded repetition
// repeats (earley.Machine.RepeatedCharacters: a UUID's hex digits, an
// e-mail's or a tag's letters, a whitespace run), it builds a run table
// (runs.go): the tokens whose bytes are all in the class, by length (a
// Bitset where a list would grow long), and the trie nodes where a run
// leaves the class, by run length and class. Inside the repetition a mask
// then takes the runs that fit in the room left whole and walks only the
// exits that the State after the run can scan: a UUID's position costs
// 3 to 5 µs instead of 10 to 15, a tag's 7 µs instead of 120. The tables
// cost 0 to 1.7 MB and up to 5 ms (the schema workload's 8 tables; SQLite
// 2 tables, 0.3 MB and 1 ms; 5 of 8 workloads have none). It indexes
// the trie's nodes by the class of their edge, leaving out those below a
// byte that only multi-byte characters have (leavers.go: 0.3 to 0.9 MB
// and 0.3 to 0.8 ms on those workloads), so that a walk below a State
// that loops on most classes visits only the edges that leave the loop
// (a comment's "-", a string's quote and backslash). It then
// computes the mask of the start State (0.3 to 2 ms; XML's prolog is the
// costliest), which every sampler asks for first. Nothing else is computed
// ahead: which positions of a grammar a sampler will visit is not known
// before it does.
//
// Everything else is computed on first use and cached until MaxCacheBytes
// (256 MB) is reached, when the caches are emptied: the Earley States and
// their transitions (earley.Machine), one mask per State (16 KB each on
// Llama 3), the walks from views of scan items and of their subtrees, which
// classes lead a State back to itself (tested class by class, where a walk
// asks), and region shapes (region.go): for each shape of a wide position,
// the slice of tokens that stay inside it (a Bitset when it holds more than
// 1/32 of the vocabulary, else a list) and its frontier. A shape's walk
// takes a subtree whole where its classes loop, or where it is valid UTF-8
// and the shape takes every multi-byte character back to the same State
// (utf8.go): the non-ASCII tokens inside a string are not walked byte by
// byte. Inside a bounded repetition (a JSON schema's maxLength), where no
// class loops because every position is its own rule, walks start from the
// true State, whose later positions every step shares, and take whole a
// subtree whose classes step every position alike and which is no deeper
// than the positions left (chains, mask.go: each position's classes and
// depth are found by stepping it, where one set of scan items accepts
// every class a single step (earley.Machine.ScanAlike), and multi-byte
// characters are checked position by position, as many characters deep
// as the subtree's last multi-byte character starts and at most 8
// positions past those already checked: each position's check builds the
// States inside every form of character). A walk from
// the top that most of the vocabulary's first bytes survive (a string
// body, a comment) starts from every token and drops the subtrees it
// prunes, rather than adding the far more it keeps. Earley States are
// carved from shared blocks, not allocated one by one. One pass over each workload from a fresh Masker caches 0.5 to 3.9
// MB (210 to 2,800 States; 0 to 31 shapes). Steps whose States are cached cost a map look-up and
// allocate nothing.
package gcd
