package gcd

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
)

func compile(t testing.TB, src string) *grammar.Grammar {
	t.Helper()
	g, _, err := grammar.Compile("test.gbnf", []byte(src), grammar.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// bruteMask is the definition of a mask: every token's bytes through a
// parser of a fresh Machine.
func bruteMask(g *grammar.Grammar, v *Vocab, prefix []byte) (Bitset, error) {
	return bruteMaskWith(earley.New(g), v, prefix)
}

func bruteMaskWith(m *earley.Machine, v *Vocab, prefix []byte) (Bitset, error) {
	return BruteMask(m, v, prefix)
}

func diffMasks(v *Vocab, got, want Bitset) string {
	var out []string
	for id := 0; id < v.Size() && len(out) < 10; id++ {
		if got.Has(id) != want.Has(id) {
			out = append(out, fmt.Sprintf("%d %q got %v want %v", id, v.Token(id), got.Has(id), want.Has(id)))
		}
	}
	return strings.Join(out, "; ")
}

// A vocabulary of short tokens over a small alphabet, with multi-byte
// characters and broken UTF-8 pieces, plus an EOS.
func testVocab(rng *rand.Rand) *Vocab {
	alphabet := []string{"a", "b", "\"", "\\", " ", "{", "}", ",", ":", "1", "é", "\xc3", "\xa9", "€", "\xe2\x82"}
	seen := map[string]bool{}
	v := &Vocab{}
	add := func(s string, special bool) { v.Add([]byte(s), special, s) }
	for _, a := range alphabet {
		seen[a] = true
		add(a, false)
	}
	for v.Size() < 400 {
		var b strings.Builder
		for n := 1 + rng.IntN(5); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		if !seen[b.String()] {
			seen[b.String()] = true
			add(b.String(), false)
		}
	}
	add("<eos>", true)
	v.EOS = []int{v.Size() - 1}
	add("<special>", true)
	return v
}

var maskGrammars = []string{
	`root ::= "{" ws ( member ( ws "," ws member )* ws )? "}"
member ::= string ws ":" ws value
value ::= string | [0-9]+ | root
string ::= "\"" ( [^"\\] | "\\" ["\\] )* "\""
ws ::= " "*`,
	`root ::= ( "a" root "b" | "ab" | "é"+ )`,
	`root ::= [^a]* "a" | "€" root`,
	`root ::= x* ; x ::= "ab" | "b"`,
	`root ::= [ab1]{0,3} " " [ab]{1,4} ( "," [ab1 ]{0,2} )* "}"?`,
	// A JSON object's optional members, each rule predicting the next
	// (as pkg/jsonschema writes them), then other members: longer than a
	// view climbs (earley's maxClimb).
	`root ::= "{\"a\":1" e1 "}" ; e1 ::= ",\"ab\":" v e2 | e2 ; e2 ::= ",\"ba\":" v e3 | e3 ; ` +
		`e3 ::= ",\"b\":" v e4 | e4 ; e4 ::= ",\"aab\":" v e5 | e5 ; e5 ::= ",\"bb\":" v e6 | e6 ; ` +
		`e6 ::= ( "," "\"" [abé]* "\"" ":" v )* ; v ::= "1" | "\"" [ab]* "\""`,
	// An array of at most 6 strings of an enum (pkg/jsonschema's maxItems):
	// the views of an item's characters stop at the repetition's links
	// (earley's originView), so a token that closes the string escapes them.
	`root ::= "[" ( "\"ab\"" | "\"b\"" | "\"aab\"" ) ( "," ( "\"ab\"" | "\"b\"" | "\"aab\"" ) ){0,5} "]"`,
}

// TestChainsMatchBruteForce follows random paths through a bounded
// repetition long enough for chains to take subtrees whole (see chain)
// and for positions far from its bound to share masks (RoomKey), checks
// that they did, and compares every mask with the definition.
func TestChainsMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	v := testVocab(rng)
	// Every string of a and b of 2 to 6 bytes, and of a, é and € of 2 to 4
	// characters, not in it yet: subtrees of the trie large enough for a
	// chain to take, with multi-byte characters that a class may or may
	// not have.
	addAll := func(alphabet []string, maxLen int) {
		eachWord(alphabet, maxLen, func(w string, n int) {
			if _, ok := v.ID(w); !ok && n > 1 {
				v.Add([]byte(w), false, w)
			}
		})
	}
	addAll([]string{"a", "b"}, 6)
	addAll([]string{"a", "é", "€"}, 4)
	trie := NewTrie(v)
	chains, rooms := 0, 0
	for _, src := range []string{
		`root ::= "{" [ab]{0,30} ( "}" | "a1" )`,
		`root ::= ( [ab] | "é" ){2,25} ( "," [^,]{1,9} | "ba" )?`,
		`root ::= "{" [^"\\{}]{0,30} "}"`,
		`root ::= "{" [a-zé ]{0,30} ( "}" | "€" )`,
		// Every class leads "{" to one State, and the next, but not the
		// third: there one item takes a, another b (a or b is the class a
		// chain follows, so both are tried).
		`root ::= "{" [ab]{0,5} "}" | "{" [ab] [ab] "a" [ab]{0,9} "}"`,
		`root ::= "{" [ab]{0,5} "}" | "{" [ab] [ab] "b" [ab]{0,9} "}"`,
	} {
		g := compile(t, src)
		for _, labels := range []int{labelsShared, labelsOwn} {
			k := newMasker(earley.New(g), v, trie, labels)
			walkRandomly(t, k, g, rng, src, 20, 30)
			chains += k.Stats.Chains
			rooms += k.Stats.RoomHits
		}
	}
	if chains == 0 {
		t.Error("no subtree taken by a chain")
	}
	if rooms == 0 {
		t.Error("no mask served by another position's (earley.Machine.RoomKey)")
	}
}

// TestRoomRepsMatchBruteForce: far from a bounded repetition's bound,
// walks go on from the first State of each position's room key rather
// than build one for every position (roomRep). The repetitions below are
// longer than any token, in contexts that differ in what may follow them,
// and tokens run up to 27 of their characters (é and a backslash among
// them) before a quote, a brace or a comma: every mask is compared with
// the definition.
func TestRoomRepsMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	v := testVocab(rng)
	for range 300 {
		var b strings.Builder
		for n := 3 + rng.IntN(25); n > 0; n-- {
			b.WriteString([]string{"a", "b", "a", "b", "é", `\`}[rng.IntN(6)])
		}
		b.WriteString([]string{`"`, `"}`, `",`, `":`, "", "}"}[rng.IntN(6)])
		if _, ok := v.ID(b.String()); !ok {
			v.Add([]byte(b.String()), false, b.String())
		}
	}
	trie := NewTrie(v)
	reps := 0
	for _, src := range []string{
		`root ::= "{" str ":" str "}" | "[" str "," str "]"
str ::= "\"" char{0,60} "\""
char ::= [^"\\] | "\\" ["\\]`,
		`root ::= "{" [abé]{0,50} ( "}" | "," [ab]{3,45} ":" ) "1"`,
	} {
		g := compile(t, src)
		for _, labels := range []int{labelsShared, labelsOwn} {
			k := newMasker(earley.New(g), v, trie, labels)
			walkRandomly(t, k, g, rng, src, 12, 25)
			reps += k.Stats.RoomReps
		}
	}
	t.Logf("walks gone on from another position's State: %d", reps)
	if reps == 0 {
		t.Error("no walk went on from another position's State")
	}
}

// TestRunsOfStringCharacters: inside a bounded string whose characters
// are ASCII, escapes or multi-byte (a JSON schema's maxLength), the chain
// runs over the ASCII ones, and masks take their tokens from a run table
// of the labelled trie, built on first use (runsOf), walking from the
// State after each run the tokens that leave it: a quote, an escape, a
// multi-byte character.
func TestRunsOfStringCharacters(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	v := testVocab(rng)
	eachWord([]string{"a", "b", " ", "\\", "é"}, 4, func(w string, n int) {
		if _, ok := v.ID(w); !ok && n > 1 {
			v.Add([]byte(w), false, w)
		}
	})
	trie := NewTrie(v)
	src := `root ::= "{" str ( ":" str | "," "1" )? "}"
str ::= "\"" char{2,9} "\""
char ::= [^"\\\x00-\x1f] | "\\" ["\\n]`
	g := compile(t, src)
	for _, labels := range []int{labelsShared, labelsOwn} {
		k := newMasker(earley.New(g), v, trie, labels)
		walkRandomly(t, k, g, rng, src, 30, 20)
		if k.Stats.Runs == 0 {
			t.Errorf("labels %d: no mask from a run table", labels)
		}
	}
}

// TestPureKidsTakenWhole: inside a bounded string, the tokens after a run
// of ASCII characters that go on with multi-byte ones and nothing else (é
// words) are taken a group at a time (runGroup), where the room left holds
// them; near the bound, where it may not, kid by kid.
func TestPureKidsTakenWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	v := testVocab(rng)
	eachWord([]string{"a", "b", "é", `"`}, 4, func(w string, n int) {
		if _, ok := v.ID(w); !ok && n > 1 {
			v.Add([]byte(w), false, w)
		}
	})
	trie := NewTrie(v)
	for _, max := range []int{5, 12, 40} {
		src := strings.ReplaceAll(`root ::= "{" str ( "," str )? "}"
str ::= "\"" char{1,MAX} "\""
char ::= [^"\\\x00-\x1f] | "\\" ["\\n]`, "MAX", fmt.Sprint(max))
		g := compile(t, src)
		for _, labels := range []int{labelsShared, labelsOwn} {
			k := newMasker(earley.New(g), v, trie, labels)
			walkRandomly(t, k, g, rng, src, 30, 16)
			if k.Stats.PureKids == 0 {
				t.Errorf("maxLength %d, labels %d: no pure kids taken whole", max, labels)
			}
		}
	}
}

// walkRandomly follows walks random paths of up to steps tokens through
// k's grammar g, rolling back now and then, and compares each step's mask,
// cached or not, with the definition.
func walkRandomly(t *testing.T, k *Masker, g *grammar.Grammar, rng *rand.Rand, name string, walks, steps int) {
	t.Helper()
	for range walks {
		st := k.NewState()
		for range steps {
			got := st.Allowed()
			want, err := bruteMask(g, k.vocab, st.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if d := diffMasks(k.vocab, got, want); d != "" {
				t.Fatalf("%s after %q: %s", name, st.Bytes(), d)
			}
			ids := got.AppendIDs(nil)
			if len(ids) == 0 {
				break
			}
			id := ids[rng.IntN(len(ids))]
			if err := st.Advance(id); err != nil {
				t.Fatalf("%s: allowed token %d rejected: %v", name, id, err)
			}
			if st.Ended() {
				break
			}
			if rng.IntN(6) == 0 {
				st.Rollback(rng.IntN(len(st.Tokens()) + 1))
			}
		}
	}
}

// TestChainsCheckEveryPosition: in the grammar below é may be the first
// two characters of a copy but not the third, while every ASCII character
// that may be one may be any, so a chain may take a subtree with é in it
// only after checking the characters at every position its paths reach,
// not only at the first (a check at the first alone allows "ccé"). The
// vocabulary is every word of c and é of 1 to 5 characters: subtrees large
// enough for a chain, valid UTF-8, with é at every depth.
func TestChainsCheckEveryPosition(t *testing.T) {
	v := &Vocab{}
	for _, s := range []string{"{", "}"} {
		v.Add([]byte(s), false, s)
	}
	words := []string{""}
	for range 5 {
		var next []string
		for _, w := range words {
			next = append(next, w+"c", w+"é")
		}
		words = next
		for _, w := range words {
			v.Add([]byte(w), false, w)
		}
	}
	v.Add([]byte("<eos>"), true, "<eos>")
	v.EOS = []int{v.Size() - 1}
	src := `root ::= "{" ( [^{}\x00-\x1F\x7F] [^{}\x00-\x1F\x7F] [ -z|~] ){0,9} "}"`
	g := compile(t, src)
	walkRandomly(t, NewMasker(earley.New(g), v, NewTrie(v)), g, rand.New(rand.NewPCG(5, 6)), src, 20, 12)
}

// TestMaskMatchesBruteForce follows random paths through several grammars
// and compares each step's mask, cached or not, with the definition: with
// the Masker's settings, and with walks of a loop's leavers wherever they
// are exact (the test vocabulary's trie is too small for them otherwise).
func TestMaskMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	v := testVocab(rng)
	trie := NewTrie(v)
	leavers := 0
	for gi, src := range maskGrammars {
		src = strings.ReplaceAll(src, " ; ", "\n")
		g := compile(t, src)
		for _, labels := range []int{labelsShared, labelsOwn} {
			name := fmt.Sprintf("grammar %d, labels %d", gi, labels)
			walkRandomly(t, newMasker(earley.New(g), v, trie, labels), g, rng, name, 30, 25)
			k := newMasker(earley.New(g), v, trie, labels)
			k.leaversMin, k.leaversFew = 1, 1
			walkRandomly(t, k, g, rng, name+", leavers", 30, 25)
			leavers += k.Stats.Leavers
		}
	}
	if leavers == 0 {
		t.Error("no walk over a loop's leavers")
	}
}

func TestAdvanceErrors(t *testing.T) {
	v := smallVocab("a", "b", "<eos>")
	v.Special[2] = true
	v.EOS = []int{2}
	k := NewMasker(earley.New(compile(t, `root ::= "ab"`)), v, NewTrie(v))
	st := k.NewState()
	for _, c := range []struct {
		id   int
		want string
	}{{5, "out of range"}, {1, "not allowed"}, {2, "before the sentence is complete"}} {
		if err := st.Advance(c.id); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Advance(%d) = %v, want error containing %q", c.id, err, c.want)
		}
	}
	if st.Advance(0) != nil || st.Advance(1) != nil || st.Advance(2) != nil || !st.Ended() {
		t.Fatal("a b <eos> rejected")
	}
	if st.Allowed().Count() != 0 {
		t.Error("tokens allowed after EOS")
	}
	st.Rollback(1)
	if got := st.Allowed().AppendIDs(nil); len(got) != 1 || got[0] != 1 {
		t.Errorf("after rollback to [a]: allowed %v, want [1]", got)
	}
}

// brokenUTF8 counts the ordinary tokens outside mask after which prefix is
// not the beginning of any valid UTF-8 text.
func brokenUTF8(v *Vocab, prefix []byte, mask Bitset) int {
	n := 0
	for id := range v.Size() {
		tok := v.Token(id)
		if !v.Special[id] && len(tok) > 0 && !mask.Has(id) && !validUTF8Prefix(append(prefix[len(prefix):len(prefix)], tok...), prefix) {
			n++
		}
	}
	return n
}

// validUTF8Prefix reports whether prefix followed by tok can be extended to
// valid UTF-8.
func validUTF8Prefix(tok, prefix []byte) bool {
	s := append(append([]byte(nil), prefix...), tok...)
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		if r == utf8.RuneError && size <= 1 {
			return !utf8.FullRune(s) && completable(s)
		}
		s = s[size:]
	}
	return true
}

// completable reports whether an incomplete UTF-8 sequence can be completed:
// some continuation makes it a valid encoding.
func completable(s []byte) bool {
	for _, c := range []byte{0x80, 0x90, 0xA0, 0xBF} {
		t := append(append([]byte(nil), s...), c, c, c)
		if r, _ := utf8.DecodeRune(t); r != utf8.RuneError {
			return true
		}
	}
	return false
}

type workload struct {
	name string
	ids  []int
	text []byte
	g    *grammar.Grammar
}

func loadWorkload(t testing.TB, name string) workload {
	dir := filepath.Join("..", "..", "data", "bench", "masks")
	src, err := os.ReadFile(filepath.Join(dir, name+".gbnf"))
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(dir, name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, name+".ids"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []int
	for _, f := range strings.Fields(string(raw)) {
		id, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return workload{name, ids, text, compile(t, string(src))}
}

// workloads are the names of the workloads in data/bench/masks.
var workloads = []string{"json", "sygus", "sqltest", "sqlite", "xml", "cp", "slia", "schema"}

// TestWorkloadsAgainstXGrammar steps through the benchmark workloads on the
// Llama-3 vocabulary and compares every step's allowed-token count with
// XGrammar's. gasp may never allow more. It may allow fewer only by tokens
// that cannot follow the prefix in any valid UTF-8 text (XGrammar admits some
// of them inside strings: 0xC0, 0xC1 and tokens that start with a
// continuation byte), except on cp, where XGrammar admits tags the grammar
// does not have (TestXGrammarCPOverPermits names them). Sampled steps, and
// every step whose count differs, are compared token by token with brute
// force.
func TestWorkloadsAgainstXGrammar(t *testing.T) {
	v := loadLlama3(t)
	trie := NewTrie(v)
	v.EOS = []int{128001}
	raw, err := os.ReadFile(filepath.Join("..", "..", "data", "bench", "masks", "xgrammar-reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string]struct {
		Allowed []int `json:"allowed"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	for _, name := range workloads {
		t.Run(name, func(t *testing.T) {
			w := loadWorkload(t, name)
			k := NewMasker(earley.New(w.g), v, trie)
			st := k.NewState()
			want := ref[name].Allowed
			if len(want) != len(w.ids)+1 {
				t.Fatalf("reference has %d steps, workload %d", len(want), len(w.ids)+1)
			}
			for i := 0; i <= len(w.ids); i++ {
				mask := st.Allowed()
				got := mask.Count()
				if got > want[i] {
					t.Errorf("step %d after %.40q: %d allowed, XGrammar %d", i, st.Bytes(), got, want[i])
				} else if got < want[i] && name != "cp" && want[i]-got > brokenUTF8(v, st.Bytes(), mask) {
					t.Errorf("step %d after %.40q: %d allowed, XGrammar %d: more than the rejected tokens that break UTF-8",
						i, st.Bytes(), got, want[i])
				}
				if i%25 == 0 || got != want[i] || i == len(w.ids) {
					b, err := bruteMask(w.g, v, st.Bytes())
					if err != nil {
						t.Fatal(err)
					}
					if d := diffMasks(v, mask, b); d != "" {
						t.Fatalf("step %d after %q: %s", i, st.Bytes(), d)
					}
				}
				if i == len(w.ids) {
					if !mask.Has(128001) {
						t.Errorf("EOS not allowed at the end")
					}
					break
				}
				if err := st.Advance(w.ids[i]); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
			}
			if string(st.Bytes()) != string(w.text) {
				t.Errorf("bytes %q, want %q", st.Bytes(), w.text)
			}
		})
	}
}

// TestXGrammarCPOverPermits names the tokens XGrammar 0.1.27 allows on two
// steps of the cp workload that gasp does not, and checks by the grammar's
// tag lists alone (not by a parser) that they cannot continue the prefix:
// at those steps the prefix ends inside a constituent's tag, which must be
// one of the FullPhraseTag or WordTag alternatives followed by a space.
// XGrammar's automaton merges the states of these long alternations and
// admits tags such as "ID", "IP", "ADJP-4" and "ADJP-LOC". The XGrammar masks are
// in testdata (the ids its harness dumps with DUMP_STEP).
func TestXGrammarCPOverPermits(t *testing.T) {
	v := loadLlama3(t)
	trie := NewTrie(v)
	w := loadWorkload(t, "cp")
	src, err := os.ReadFile(filepath.Join("..", "..", "data", "bench", "masks", "cp.gbnf"))
	if err != nil {
		t.Fatal(err)
	}
	var tags []string
	for _, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(line, "FullPhraseTag ::=") || strings.HasPrefix(line, "WordTag ::=") {
			for _, alt := range strings.Split(line[strings.Index(line, "::=")+3:], "|") {
				tags = append(tags, strings.Trim(strings.TrimSpace(alt), `"`))
			}
		}
	}
	// tagOK reports whether s, the text after "( ", can begin "TAG " for a tag.
	// (A constituent is "( TAG " and then its children or its word.)
	tagOK := func(s string) bool {
		for _, tag := range tags {
			if strings.HasPrefix(tag+" ", s) || strings.HasPrefix(s, tag+" ") {
				return true
			}
		}
		return false
	}
	for _, tt := range []struct {
		step int
		want []string // the tokens XGrammar allows and gasp does not
	}{
		{2, []string{" ID", " IG", " IP", " LP", " LR", " MG", " MN", " MP", " POP", " POR"}},
		{5, []string{"4", "5", "6", "D", "DI", "DIR", "H", "HL", "L", "LG", "LO", "LOC", "M", "MN", "N", "NO", "S", "SB",
			"TM", "TMP", "TT"}},
	} {
		st := NewMasker(earley.New(w.g), v, trie).NewState()
		for _, id := range w.ids[:tt.step] {
			if err := st.Advance(id); err != nil {
				t.Fatal(err)
			}
		}
		raw, err := os.ReadFile(filepath.Join("testdata", fmt.Sprintf("xgrammar-cp-step%d.ids", tt.step)))
		if err != nil {
			t.Fatal(err)
		}
		prefix := string(st.Bytes())
		open := strings.LastIndex(prefix, "(")
		if open < 0 {
			t.Fatalf("step %d: prefix %q has no open constituent", tt.step, prefix)
		}
		mask := st.Allowed()
		var extra []string
		for _, f := range strings.Fields(string(raw)) {
			id, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			if mask.Has(id) {
				continue
			}
			tok := string(v.Token(id))
			extra = append(extra, tok)
			if rest := prefix[open+1:] + tok; strings.HasPrefix(rest, " ") && tagOK(rest[1:]) {
				t.Errorf("step %d after %q: gasp rejects %q, which begins a tag", tt.step, prefix, tok)
			}
		}
		slices.Sort(extra)
		if !slices.Equal(extra, tt.want) {
			t.Errorf("step %d after %q: XGrammar's extra tokens %q, want %q", tt.step, prefix, extra, tt.want)
		}
		if n := mask.Count(); n+len(extra) != len(strings.Fields(string(raw))) {
			t.Errorf("step %d: gasp allows %d tokens XGrammar does not", tt.step, n+len(extra)-len(strings.Fields(string(raw))))
		}
	}
}

// TestChainsCheckEachCharacterState: after a lead byte from C2 to C3 every
// continuation byte finishes the character, after one from C4 to DF only
// those from 80 to 9F do, so U+0120 (C4 A0) is no character of the
// repetition; the check of a position must not take the first lead's
// continuations for every lead's.
func TestChainsCheckEachCharacterState(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	v := testVocab(rng)
	words := []string{""}
	for range 4 {
		var next []string
		for _, w := range words {
			for _, a := range []string{"a", "é", "Ā", "Ġ"} {
				next = append(next, w+a)
			}
		}
		words = next
		for _, w := range words {
			if _, ok := v.ID(w); !ok {
				v.Add([]byte(w), false, w)
			}
		}
	}
	var b strings.Builder
	for lead := 0xC4; lead <= 0xDF; lead++ {
		lo := rune(lead-0xC0)<<6 | 0x00
		fmt.Fprintf(&b, `\u%04x-\u%04x`, lo, lo+0x1F)
	}
	src := `root ::= "{" c{0,12} "}"
c ::= [a-z\u0080-\u00ff` + b.String() + `\u0800-\ud7ff\ue000-\uffff\U00010000-\U0010ffff]`
	g := compile(t, src)
	k := NewMasker(earley.New(g), v, NewTrie(v))
	walkRandomly(t, k, g, rng, "split continuations", 30, 14)
}
