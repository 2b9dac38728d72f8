package lark

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzCompile checks that no grammar source makes Compile panic, and that
// a compiled grammar is valid.
func FuzzCompile(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.lark")
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("start: \"a\"i ~ 2..3 | /[\\d\\s]{,2}x/ -> y\n%ignore \" \"\n"))
	f.Add([]byte("?start: _x\n_x.2: (A | \"b\"..\"d\")+\nA.1: \"a\"\n%import common (WS, INT)\n%ignore WS\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		g, err := Compile("f.lark", src, "")
		if err == nil {
			if verr := g.Validate(); verr != nil {
				t.Fatalf("compiled grammar is invalid: %v\n%s", verr, src)
			}
		}
	})
}
