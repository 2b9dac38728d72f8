package jsonschema

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/earley"
)

// suiteGroup is one schema of the JSON-Schema-Test-Suite with its tests.
type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

// maxOrders bounds the member orders tried per instance.
const maxOrders = 5040

// orders returns the canonical texts of v under every order of the members
// of its objects (up to maxOrders): the grammar fixes one order per
// schema, and the suite's instances are written in any.
func orders(v *Value) []string {
	switch v.Kind {
	case Array:
		outs := []string{"["}
		for i, e := range v.Arr {
			var next []string
			for _, o := range outs {
				for _, s := range orders(e) {
					if len(next) < maxOrders {
						sep := ""
						if i > 0 {
							sep = ","
						}
						next = append(next, o+sep+s)
					}
				}
			}
			outs = next
		}
		for i := range outs {
			outs[i] += "]"
		}
		return outs
	case Object:
		var outs []string
		permute(v.Obj, 0, func(ms []Member) {
			parts := []string{"{"}
			for i, m := range ms {
				var b strings.Builder
				if i > 0 {
					b.WriteByte(',')
				}
				writeString(&b, m.Key)
				b.WriteByte(':')
				var next []string
				for _, p := range parts {
					for _, s := range orders(m.Val) {
						if len(next) < maxOrders {
							next = append(next, p+b.String()+s)
						}
					}
				}
				parts = next
			}
			for _, p := range parts {
				if len(outs) < maxOrders {
					outs = append(outs, p+"}")
				}
			}
		})
		return outs
	}
	return []string{Canonical(v)}
}

func permute(ms []Member, k int, f func([]Member)) {
	if k == len(ms) {
		f(ms)
		return
	}
	for i := k; i < len(ms); i++ {
		ms[k], ms[i] = ms[i], ms[k]
		permute(ms, k+1, f)
		ms[k], ms[i] = ms[i], ms[k]
	}
}

// inLanguage reports whether some member order of the instance is accepted.
func inLanguage(m *earley.Machine, v *Value) bool {
	for _, s := range orders(v) {
		p := m.NewParser()
		if p.FeedBytes([]byte(s)) && p.Complete() {
			return true
		}
	}
	return false
}

type tally struct{ groups, compiled, tests, passed int }

// TestSuite runs the vendored JSON-Schema-Test-Suite files: for every
// schema that compiles, each valid instance must be in the language and
// each invalid one must not; it logs the pass rate per file.
func TestSuite(t *testing.T) {
	files, _ := filepath.Glob("testdata/suite/*.json")
	fmtFiles, _ := filepath.Glob("testdata/suite/optional/format/*.json")
	files = append(files, fmtFiles...)
	if len(files) == 0 {
		t.Fatal("no suite files")
	}
	total := tally{}
	var lines []string
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var groups []suiteGroup
		if err := json.Unmarshal(src, &groups); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		name := strings.TrimSuffix(strings.TrimPrefix(path, "testdata/suite/"), ".json")
		var ta tally
		for gi, grp := range groups {
			ta.groups++
			g, err := Compile(fmt.Sprintf("%s[%d]", name, gi), grp.Schema)
			if err != nil {
				t.Logf("%s: %q: not compiled: %v", name, grp.Description, firstLine(err))
				continue
			}
			ta.compiled++
			m := earley.New(g)
			for _, tc := range grp.Tests {
				ta.tests++
				v, err := ParseValue(tc.Data)
				if err != nil {
					t.Fatalf("%s: %s: %v", name, tc.Description, err)
				}
				got := inLanguage(m, v)
				if text, ok := Write(m, v); ok != got {
					t.Errorf("%s: %q / %q: Write finds %q (%v), member orders say %v", name, grp.Description, tc.Description, text, ok, got)
				}
				if got != tc.Valid {
					if !expectedMismatch[name+"/"+grp.Description+"/"+tc.Description] {
						t.Errorf("%s: %q / %q: %s in the language: %v, valid: %v", name, grp.Description, tc.Description, tc.Data, got, tc.Valid)
					}
					continue
				}
				ta.passed++
			}
		}
		lines = append(lines, fmt.Sprintf("%-28s schemas compiled %3d/%-3d  tests passed %4d/%-4d", name, ta.compiled, ta.groups, ta.passed, ta.tests))
		total.groups += ta.groups
		total.compiled += ta.compiled
		total.tests += ta.tests
		total.passed += ta.passed
	}
	sort.Strings(lines)
	lines = append(lines, fmt.Sprintf("%-28s schemas compiled %3d/%-3d  tests passed %4d/%-4d", "TOTAL", total.compiled, total.groups, total.passed, total.tests))
	t.Log("JSON-Schema-Test-Suite draft2020-12:\n" + strings.Join(lines, "\n"))
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// expectedMismatch lists suite cases whose instances lie outside the
// canonical form the package documents (none so far).
var expectedMismatch = map[string]bool{}
