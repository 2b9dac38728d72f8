// Package jsonschema compiles JSON Schema documents (a subset of draft
// 2020-12, listed under Keywords) to gasp's byte-level grammars
// (pkg/grammar), so that masks and samplers constrain a language model to
// JSON texts the schema accepts.
//
// # The language
//
// The grammar accepts canonical JSON texts of the instances the schema
// accepts, and no other text. Canonical is a restriction of JSON's syntax,
// chosen so that each value has few spellings and the grammar stays small;
// it is stated here because it means that a valid instance written another
// way is outside the language:
//
//   - No whitespace between tokens (JSON allows any; a bounded whitespace
//     form would multiply the ways to write each value, and a decoder that
//     wants pretty output can re-indent).
//   - Object members in schema order: the members "properties" declares,
//     in the order it declares them (each optional one may be left out),
//     then the required names it does not declare (sorted), then any other
//     members additionalProperties allows, in any order. Accepting every
//     order would make the grammar exponential in the number of
//     properties; XGrammar and llguidance fix the order too. Other members
//     may repeat a name (a context-free grammar cannot exclude that); since
//     every such member satisfies additionalProperties, the instance is
//     valid whichever duplicate a reader keeps. An object in enum or const
//     is written in the order of its own members.
//   - Strings: each character as itself, except '"' and '\' (\" and \\),
//     and U+0000-U+001F (\b \f \n \r \t, others \u00xx with lower-case
//     hex): no other escapes (no \/, no \u for printable characters).
//   - Integers (type "integer"): 0 or -?[1-9][0-9]*, so 1.0 and -0 are out.
//     Numbers (type "number") are any JSON number when the schema bounds
//     them not; with a minimum, maximum or exclusive bound they are plain
//     decimals: no exponent, no leading zeros, no trailing fractional
//     zeros, no -0 (1.5, not 1.50 or 15e-1).
//
// Canonical returns a value's canonical text (with members in the value's
// own order); Write returns the text of a value that a compiled schema's
// grammar accepts, finding the member order by a search the parser prunes
// (to put, say, a benchmark's instances in the grammar's form).
//
// # Keywords
//
// Supported:
//
//   - type; enum and const (beside type only).
//   - properties, required, additionalProperties (true, false or a schema).
//   - items (a schema), prefixItems, minItems, maxItems.
//   - minLength, maxLength, pattern: pkg/regex in Search mode (a pattern is
//     unanchored; "^…$" anchors it), with Go's RE2 semantics, not
//     ECMA-262's.
//   - format, as an assertion (as in llguidance; 2020-12 makes it an
//     annotation by default): date (RFC 3339 full-date, days per month and
//     leap years), time (RFC 3339 full-time, T/Z in either case, leap
//     second :60 only at 23:59 UTC after the offset), date-time, uuid (RFC
//     9562, either case), ipv4 (RFC 2673 dotted-quad, no leading zeros),
//     ipv6 (RFC 4291 text form, no zone), uri (RFC 3986 URI, but no
//     percent-encoded octets in a host name and no IPvFuture host: Go's
//     net/url, which validators use, rejects those), email (RFC 5321
//     Mailbox: dot-atom or quoted-string local part without quoted-pairs,
//     a domain or an IPv4/IPv6 address literal; length limits unchecked).
//   - minimum, maximum, exclusiveMinimum, exclusiveMaximum: exact
//     digit-level grammars for the range, of integers or plain decimals.
//   - anyOf; oneOf when its branches are provably disjoint: by type, by
//     enum/const values, by a required property with disjoint enum/const
//     values (a discriminator), or by a member one branch requires and
//     another forbids.
//   - allOf, and $ref beside other keywords, by merging the schemas (an
//     intersection; two different values of a keyword that cannot be
//     merged, such as two patterns, are an error). Where the root's
//     $schema names a draft from 3 to 7, the keywords beside a $ref are
//     ignored, as those drafts say.
//   - $ref to a JSON pointer in the same document ("#", "#/$defs/a"),
//     recursion included; $defs and definitions; $id below the root where
//     no $ref lies under it.
//
// Annotations (title, description, default, examples, …) and unknown
// keywords are ignored, as the specification says.
//
// Errors, each naming the keyword by its JSON pointer (file#/properties/a/
// pattern): not, if/then/else, patternProperties, propertyNames,
// min/maxProperties, dependentRequired/Schemas, contains, uniqueItems
// (true), multipleOf, unevaluated*, $anchor, $dynamicRef, remote $refs;
// bounds written with exponents beyond ±400; pattern or format beside
// minLength/maxLength; enum/const beside assertions other than type; a
// oneOf whose branches may overlap; a schema that accepts no value.
//
// # How
//
// Each schema becomes a grammar.Expr, with rules for $ref targets, the
// shared "any value" and "string character", and for the tails of member
// lists (so that optional members cost linear size); regular expressions
// written here (formats, integer ranges) and patterns go through
// pkg/regex with a character hook that spells characters as JSON does;
// grammar.CompileSyntax lowers the result to bytes. The name of a member
// that additionalProperties allows is any string but the declared names:
// its rules say that after any prefix any characters may follow
// (grammar.Universal), so that a masker takes the tokens of a name's
// start at once rather than walking the names' trie. A pattern is a rule
// of its own, marked as a regular expression's (grammar.RuleDef.Regex):
// the recognizer keeps a search's partial matches from multiplying its
// States, and a masker takes a search's leading .* as a loop over every
// character rather than walking the trie.
//
// The tests check the language against the JSON-Schema-Test-Suite (for
// every schema that compiles, every valid instance, in some member order,
// is accepted, and no invalid one is) and samples of compiled schemas
// against an independent validator.
package jsonschema
