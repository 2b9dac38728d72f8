package lark

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
)

// The oracle is Debian's python3-lark (installed by scripts/test-deps.sh),
// run by testdata/oracle.py: Earley with lexer="dynamic" (Earley's default)
// and with lexer="dynamic_complete". The language compiled here treats
// every terminal as the set of strings it matches, which is what
// dynamic_complete parses when each terminal's Python match is its longest
// one (true of the corpus); the dynamic lexer tries only the longest match
// at each position and so accepts a subset. The test requires equality
// with dynamic_complete and inclusion of dynamic.

// larkPython returns a python3 that can import lark, or skips.
func larkPython(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if p := "/usr/bin/python3"; err == nil || fileExists(p) {
		if fileExists(p) {
			py = p
		}
	} else {
		t.Skip("no python3: cannot run the Lark oracle")
	}
	if exec.Command(py, "-c", "import lark").Run() != nil {
		t.Skip("python3 has no lark (apt-get install python3-lark; scripts/test-deps.sh)")
	}
	return py
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// answer is the oracle's answer for one string.
type answer struct {
	dynamic, complete bool
	unassigned        string // characters Python's Unicode database does not assign
}

// newInPython reports whether one of the characters that Python's Unicode
// database leaves unassigned is assigned in Go's (a later version).
func (a answer) newInGo() bool {
	for _, r := range a.unassigned {
		if unicode.IsGraphic(r) || unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Co) {
			return true
		}
	}
	return false
}

// larkOracle answers for each string.
func larkOracle(t *testing.T, py, path, start string, strs []string) []answer {
	t.Helper()
	var in bytes.Buffer
	for _, s := range strs {
		b, _ := json.Marshal(s)
		in.Write(append(b, '\n'))
	}
	cmd := exec.Command(py, "testdata/oracle.py", path, start)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle on %s: %v\n%s", path, err, stderr.String())
	}
	var answers []answer
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var a answer
		if err := json.Unmarshal(sc.Bytes(), &[]any{&a.dynamic, &a.complete, &a.unassigned}); err != nil {
			t.Fatalf("oracle output %q: %v", sc.Text(), err)
		}
		answers = append(answers, a)
	}
	if len(answers) != len(strs) {
		t.Fatalf("oracle gave %d answers for %d strings", len(answers), len(strs))
	}
	return answers
}

// alphabet is the characters of the grammar's source, plus whitespace and
// characters that probe Unicode classes and case folding.
func alphabet(src string) []rune {
	seen := map[rune]bool{}
	var rs []rune
	for _, r := range src + " \t\n\r\f\u00a0\u3000٣５\u212aſKkSsé\"\\'" {
		if !seen[r] && utf8.ValidRune(r) {
			seen[r] = true
			rs = append(rs, r)
		}
	}
	return rs
}

func mutate(rng *rand.Rand, s string, alpha []rune) string {
	rs := []rune(s)
	for n := 1 + rng.IntN(3); n > 0; n-- {
		i := rng.IntN(len(rs) + 1)
		c := alpha[rng.IntN(len(alpha))]
		switch op := rng.IntN(3); {
		case op == 0 || len(rs) == 0 || i == len(rs):
			rs = append(rs[:i], append([]rune{c}, rs[i:]...)...)
		case op == 1:
			rs = append(rs[:i], rs[i+1:]...)
		default:
			rs[i] = c
		}
	}
	return string(rs)
}

func randomString(rng *rand.Rand, alpha []rune, maxLen int) string {
	var b strings.Builder
	for n := rng.IntN(maxLen + 1); n > 0; n-- {
		b.WriteRune(alpha[rng.IntN(len(alpha))])
	}
	return b.String()
}

// testStrings samples n sentences of g, mutates each twice and adds n
// random strings.
func testStrings(g *grammar.Grammar, rng *rand.Rand, alpha []rune, n int) []string {
	var samples, out []string
	for i := 0; i < 4*n && len(samples) < n; i++ {
		b, err := grammar.SampleLimit(g, rng, 12, 48)
		if err == nil {
			samples = append(samples, string(b))
		}
	}
	out = append(out, samples...)
	for _, s := range samples {
		out = append(out, mutate(rng, s, alpha), mutate(rng, s, alpha))
	}
	for i := 0; i < n; i++ {
		out = append(out, randomString(rng, alpha, 12))
	}
	return out
}

// TestCorpusAgainstLark compares membership with python3-lark on sampled,
// mutated and random strings for each grammar of testdata/*.lark and for
// genlm-eval's SMILES grammar (data/genlm).
func TestCorpusAgainstLark(t *testing.T) {
	py := larkPython(t)
	paths, _ := filepath.Glob("testdata/*.lark")
	if len(paths) == 0 {
		t.Fatal("no grammars in testdata")
	}
	paths = append(paths, "../../data/genlm/smiles/0/grammar.lark")
	n := 100
	if testing.Short() {
		n = 15
	}
	for i, path := range paths {
		name := strings.TrimPrefix(strings.TrimPrefix(path, "testdata/"), "../../")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			g, err := Compile(path, src, "")
			if err != nil {
				t.Fatal(err)
			}
			m := earley.New(g)
			rng := rand.New(rand.NewPCG(28, uint64(i)))
			strs := testStrings(g, rng, alphabet(string(src)), n)
			answers := larkOracle(t, py, path, DefaultStart, strs)
			var in, agreeDyn, agreeComplete, compared, skipped int
			for j, s := range strs {
				if answers[j].newInGo() {
					skipped++ // Go's and Python's Unicode versions differ here
					continue
				}
				compared++
				p := m.NewParser()
				got := p.FeedBytes([]byte(s)) && p.Complete()
				dyn, complete := answers[j].dynamic, answers[j].complete
				if got {
					in++
				}
				if got == dyn {
					agreeDyn++
				}
				if got == complete {
					agreeComplete++
				} else {
					t.Errorf("%q: gasp says %v, Lark (dynamic_complete) says %v", s, got, complete)
				}
				if dyn && !got {
					t.Errorf("%q: Lark (dynamic) accepts it, gasp does not", s)
				}
			}
			t.Logf("%s: %d strings (%d in the language; %d more left out, with characters Python's Unicode does not have): agree with dynamic_complete %d/%d, with dynamic %d/%d",
				name, compared, in, skipped, agreeComplete, compared, agreeDyn, compared)
		})
	}
}
