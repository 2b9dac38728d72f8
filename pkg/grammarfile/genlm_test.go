package grammarfile

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/regex"
)

// TestGenlmPatterns checks that each pattern task of data/genlm (read as
// Go's RE2 by pkg/regex) has the language that genlm-eval's evaluator
// gives it, Python's fullmatch: membership is compared with python3's re
// on sampled, mutated and random strings (data/genlm/README.md says why
// these patterns mean the same in both).
func TestGenlmPatterns(t *testing.T) {
	paths, _ := filepath.Glob("../../data/genlm/pattern/*/grammar.regex")
	if len(paths) == 0 {
		t.Fatal("no pattern tasks in data/genlm")
	}
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3: cannot compare with Python's re")
	}
	for i, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		pattern := regex.TrimNewline(string(src))
		g, _, err := Compile(path, grammar.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(28, uint64(i)))
		strs := patternStrings(g, rng, pattern)
		want := pythonFullmatch(t, py, pattern, strs)
		m := earley.New(g)
		in, bad := 0, 0
		for j, s := range strs {
			p := m.NewParser()
			got := p.FeedBytes([]byte(s)) && p.Complete()
			if got {
				in++
			}
			if got != want[j] {
				bad++
				t.Errorf("%s: %q: gasp says %v, Python's re.fullmatch %v", path, s, got, want[j])
			}
		}
		t.Logf("%s: %d strings, %d in the language, %d disagreeing with Python", path, len(strs), in, bad)
	}
}

// patternStrings returns 100 sentences of g, two mutations of each and 100
// random strings over the pattern's characters and a few probes.
func patternStrings(g *grammar.Grammar, rng *rand.Rand, pattern string) []string {
	alpha := []rune(pattern + "0123456789abcdefxyzABC:-. \n٣é")
	var samples []string
	for i := 0; i < 400 && len(samples) < 100; i++ {
		if b, err := grammar.SampleLimit(g, rng, 12, 64); err == nil {
			samples = append(samples, string(b))
		}
	}
	out := append([]string(nil), samples...)
	for _, s := range samples {
		for range 2 {
			rs := []rune(s)
			k := rng.IntN(len(rs) + 1)
			c := alpha[rng.IntN(len(alpha))]
			switch {
			case k == len(rs) || rng.IntN(3) == 0:
				rs = append(rs[:k], append([]rune{c}, rs[k:]...)...)
			case rng.IntN(2) == 0:
				rs = append(rs[:k], rs[k+1:]...)
			default:
				rs[k] = c
			}
			out = append(out, string(rs))
		}
	}
	for range 100 {
		var b strings.Builder
		for n := rng.IntN(16); n > 0; n-- {
			b.WriteRune(alpha[rng.IntN(len(alpha))])
		}
		out = append(out, b.String())
	}
	return out
}

// pythonFullmatch answers re.fullmatch(pattern, s) for each string.
func pythonFullmatch(t *testing.T, py, pattern string, strs []string) []bool {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"pattern": pattern, "strings": strs})
	cmd := exec.Command(py, "-c", `import json, re, sys
d = json.load(sys.stdin)
r = re.compile(d["pattern"])
json.dump([r.fullmatch(s) is not None for s in d["strings"]], sys.stdout)`)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var answers []bool
	if err := json.Unmarshal(out, &answers); err != nil || len(answers) != len(strs) {
		t.Fatalf("python3 answered %q (%v)", out, err)
	}
	return answers
}
