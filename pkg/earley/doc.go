// Package earley recognizes the sentences of a byte-level context-free
// grammar (a compiled grammar.Grammar) incrementally, one byte at a time.
//
// After each byte a Parser knows whether the prefix is viable (some sentence
// starts with it: exact, there are no dead ends) and whether it is complete
// (a sentence). Left recursion, nullable rules and ambiguity are handled (it
// is Earley's algorithm, with Aycock and Horspool's treatment of nullable
// rules). Checkpoint and Rollback are O(1), which is what samplers that
// truncate a sample and regrow it from a prefix need.
//
//	m := earley.New(g)      // one Machine per grammar
//	p := m.NewParser()
//	ok := p.FeedBytes(data) // false, and unchanged, if data would not be viable
//	done := p.Complete()
//	cp := p.Checkpoint()
//	p.Feed('x')
//	p.Rollback(cp)
//
// The Machine underneath interns Earley item sets as States, with origins
// referring to other States instead of positions. Equal States have equal
// futures, so a transition is computed once and then looked up: inside
// a loop such as a JSON string every position is the same State. Package
// gcd builds on this to cache token masks per State, and on
// Machine.ScanViews, views of a State's scan items that forget distant
// context, to share work between States that differ only there; and on
// Machine.RoomKey and Machine.ContextKey, keys under which States allow
// the same strings (of up to a length; without a leaving byte); and on
// Machine.Universal and Machine.Absorbing, which say where every string
// over some characters is viable (a front end's statement; a loop X ::=
// X • Y that takes Y's characters forever). Where origins multiply
// without changing what the items can complete into (a search pattern's
// partial matches), the items of a regular expression's rules
// (grammar.RuleDef.Regex) refer to their origins' views instead, so that
// the States stay few.
//
// Parse returns a parse tree of a complete sentence; it uses a separate,
// classical chart parser with absolute positions. Node.Format prints a tree
// as an outline and Node.SVG draws it.
package earley
