// Package lark compiles grammars written in Lark's syntax, as llguidance,
// genlm and Lark itself read them, to gasp's byte-level grammars
// (pkg/grammar), so that every mask, sampler and analysis that runs on a
// GBNF grammar runs on a Lark grammar too.
//
// # Which language
//
// A Lark grammar names a language only together with a parser and a
// lexer. This package targets Lark's Earley parser with its default
// lexer, Lark(grammar, parser="earley", lexer="dynamic"), the closest to
// a character-level reading: the language compiled is the context-free
// language in which every rule is read as written and every terminal
// stands for the set of strings its pattern matches as a whole, with the
// %ignore terminals allowed any number of times before, between and after
// the terminals of the input (never inside one). That is exactly what
// Lark's Earley parser accepts with lexer="dynamic_complete" whenever each
// terminal's Python match is its longest one (true of literals, classes
// under greedy repetition and Lark's common terminals). With
// lexer="dynamic" Lark tries only that longest match of each terminal at
// each position and so accepts a subset: "ab" under start: WORD WORD is in
// the language here, and Lark's dynamic lexer rejects it because WORD
// takes both letters. The tests compare membership with python3-lark on
// sampled, mutated and random strings for a corpus of grammars (JSON,
// arithmetic, SQL-like, SMILES-like, the common terminals, case-insensitive
// literals, ~ ranges, ignored whitespace and comments): equal to
// dynamic_complete on every string, and a
// superset of dynamic.
//
// Other Lark parsers can accept fewer strings still: LALR with the
// standard or contextual lexer splits the input into tokens before
// parsing, resolving collisions between terminals by priority and length,
// which makes some strings of this language unparsable there. Priorities
// (rule.2, TERM.2) only order parses under Earley, so they are read and
// ignored here, as are aliases (-> name), rule modifiers (?rule, !rule)
// and _rule inlining: none changes the language.
//
// # Syntax
//
// Supported: rules and TERMINALS; "strings" with Lark's escapes and the i
// flag; /regular expressions/ with the flags i, s, m and u; ranges
// "a".."z"; grouping ( ), optional [ ] and ?, repetition * +, x ~ n and
// x ~ n..m (n, m at most 1000); alternatives on continuation lines
// starting with |; // comments; %ignore of terminals, strings and
// expressions; %import common.NAME [-> ALIAS] and %import common (A, B)
// for the terminals of Lark's common module (DIGIT, HEXDIGIT, INT,
// SIGNED_INT, DECIMAL, FLOAT, SIGNED_FLOAT, NUMBER, SIGNED_NUMBER,
// ESCAPED_STRING, LCASE_LETTER, UCASE_LETTER, LETTER, WORD, CNAME,
// WS_INLINE, WS, CR, LF, NEWLINE and the comment terminals), written in
// this package.
//
// Errors, each naming file:line:col: undefined or twice-defined names, a
// terminal that uses a rule or itself, a terminal used as a token that
// matches the empty string (Lark's lexer never produces an empty token),
// templates, %declare, %override, %extend, imports of other modules, and
// regular-expression features with no exact counterpart here: lookaround,
// backreferences, anchors (^ $ \A \Z), word boundaries, lazy quantifiers
// (Lark takes their shortest match), POSIX classes, the x and l flags.
// Regular expressions are Python's: they are rewritten to Go's RE2 syntax
// and compiled by package regex; \d, \w and \s keep their Unicode meaning
// in Python (\d is \p{Nd}, \w letters, digits and _, \s what str.isspace
// accepts) and x{,n} means x{0,n}. Unicode classes and case folding follow
// Go's Unicode tables, which may differ from Python's in characters new
// to one Unicode version.
//
// Ignored terminals are matched greedily by Lark: at a position between
// tokens each is matched once, by Python's re.match, and parsing goes on
// where that match ends, so a comment %ignore'd as /#[^\n]*/ runs to the
// end of its line and whitespace %ignore'd as WS takes all of it. The
// grammar here makes every match of an ignored terminal greedy by what it
// lets follow: after a match that a character c would extend, nothing
// that begins with c (a token or another ignored terminal). After a # line
// comment only a newline or the end of the input can follow; under
// %ignore WS a token that begins with whitespace cannot follow ignored
// whitespace. This takes one character of lookahead when, after every
// complete match of the ignored terminal, each character that can begin
// what follows either extends it at once to a longer complete match or
// cannot extend it at all, the same characters after every match; this
// holds for whitespace, line comments (# // -- to the end of the line) and
// /* */ comments, and is checked exactly on an automaton. A grammar where
// it fails is refused with an error naming the ignored terminal: %ignore
// NEWLINE, (\r?\n)+, where a token can begin with \r (after "\n", "\r"
// extends the match only if "\n" follows), or %ignore /xy?/ where a token
// can begin with y. The ignored terminals are assumed to be matched
// longest-first by Python, as whitespace and comments are.
//
// # How
//
// The grammar is parsed to a small tree, lowered to pkg/grammar's syntax
// tree (rules and terminals become rules; regular expressions and i
// literals go through package regex) and compiled by grammar.CompileSyntax.
// A terminal used in a rule is preceded by the ignored terminals that may
// come before it, and the start rule is followed by them: rules
// lark-ignore-S-T derive sequences of ignored terminals, an automaton whose
// state is the set of characters the last match forbids next, and a token
// that begins with such a character comes in a copy restricted to the
// strings that do not (ignore.go). The compiled grammar starts at a rule
// named lark-root.
package lark
