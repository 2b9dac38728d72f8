// Package grammar parses grammars written in the GBNF dialect (as used by
// llama.cpp and transformers-CFG) and compiles them to context-free grammars
// over bytes, the form an Earley recognizer for grammar-constrained decoding
// consumes.
//
// # Usage
//
//	g, warnings, err := grammar.Compile("json.gbnf", src, grammar.Options{})
//	if err != nil {
//		log.Fatal(err) // an ErrorList: one "file:line:col: message" per line
//	}
//	for _, w := range warnings {
//		log.Print("warning: ", w) // pruned or unreachable rules, ...
//	}
//	rng := rand.New(rand.NewPCG(1, 2)) // math/rand/v2
//	sentence := grammar.Sample(g, rng, 20)
//
// CompileFile reads the source from a file. Parse returns the syntax tree
// (File, RuleDef, Expr) without compiling it.
//
// # Front ends
//
// Other constraint languages compile to the same Grammar by building a
// syntax tree and calling CompileSyntax: package regex (regular
// expressions, Go's RE2 syntax), package jsonschema (JSON Schema) and
// package lark (Lark grammars, as Lark's Earley parser reads them); each
// has a runnable Example. Package grammarfile picks the language of a file
// by its extension.
//
// # Dialect
//
// A grammar is a list of rules "name ::= rhs"; names match [a-zA-Z0-9_-]+;
// the start rule is "root" unless Options.Start says otherwise. A rule ends
// at a newline, except inside parentheses, right after "::=" or "|", and
// before a line that starts with "|". "#" starts a comment that runs to the
// end of the line. In the right-hand side:
//
//	a b          sequence
//	a | b        alternatives (an alternative may be empty: ε)
//	( ... )      group
//	x* x+ x?     repetition: zero or more, one or more, optional
//	x{m} x{m,} x{m,n} x{,n}  bounded repetition, bounds at most 1000
//	"text"       literal, possibly empty ""
//	[abc] [a-z]  character class; [^...] is its complement
//	.            any Unicode scalar value, newline included
//
// Literals and classes may use the escapes \t \r \n \\ \" \' \[ \] \- \^ \/
// and \xNN, \uNNNN, \UNNNNNNNN. A numeric escape denotes a code point, not a
// byte: "\xE9" is é, encoded as the two bytes C3 A9 (as in llama.cpp). Other
// escapes are errors. Classes denote sets of Unicode scalar values: ranges
// and complements never include the surrogates D800-DFFF, and [^a-c]
// excludes exactly a, b and c (unlike transformers-CFG, whose negated
// ranges drop the end point, and whose "." excludes "\n"). A "-" first or
// last in a class is literal. The source must be valid UTF-8; a byte order
// mark at its start is skipped.
//
// Errors (each with file:line:col; Compile collects up to 10, then says
// "too many errors"): syntax errors, bad escapes, unterminated literals and
// classes (a literal or class cannot span lines), empty classes "[]",
// classes that match nothing, inverted ranges "[z-a]", bad repetition
// bounds ({3,2}, {}, bounds over 1000), nesting deeper than 500, undefined
// rules (once per name, at the first use), duplicate definitions, a missing
// start rule, a compiled grammar of more than 1<<20 symbols, and an empty
// language (a start rule that derives no finite string). If there are
// syntax errors, Compile reports only those. With Options.Lenient an
// undefined rule is instead a rule with no alternatives, with a warning:
// the CP grammars of the GAD benchmark rely on this.
//
// # Compiled form
//
// Literals become one single-byte terminal per UTF-8 byte. A class becomes a
// terminal for its ASCII part plus, for its other members, sequences of 2-4
// byte-set terminals that match exactly their UTF-8 encodings (no overlong
// forms, no surrogates); if there is more than one alternative they go into
// a generated rule, shared by all uses of the same class. Equal byte sets
// are one terminal. Groups and repetitions become generated rules named
// after the rule they occur in (such as value_star_1), with
// Rule.Generated set and the position of the expression:
//
//	X*      H ::= H X | ε          (loops are left-recursive)
//	X+      H ::= H X | X
//	X?      H ::= X | ε
//	X{m,n}  X ... X (m times) O_(n-m),  O_1 ::= X | ε,  O_j ::= X O_(j-1) | ε
//	X{m,}   X ... X (m-1 times) H,  H ::= H X | X
//
// A front end may state of rules it writes that, at a character's boundary,
// any string over some bytes may follow (RuleDef.Universal, see Universal):
// Compile keeps the statement on those rules, not on the rules it generates
// for their groups and classes (a class's rule is shared), and a
// recognizer may use it (earley.Machine.Universal). A front end may also
// mark the rules it writes for a regular expression (RuleDef.Regex): the
// mark changes no language, and the rules Compile generates for their
// groups and repetitions have it too; a recognizer and a masker take it as
// a hint (see RuleDef.Regex).
//
// A compiled grammar is pruned: alternatives that use a rule deriving no
// finite string are removed, then such rules, then rules not reachable from
// the start rule, each with a warning (unreachable generated rules are
// removed silently). Rules keep their source order, user-written rules
// first, generated rules after; output is deterministic. Validate checks the
// guarantees: every rule has a production and is productive and reachable,
// all indexes are valid, terminals are non-empty, and Rule.Prods agrees
// with Prod.LHS.
package grammar
