package grammarfile_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/grammarfile"
)

// The file's extension picks the language.
func Example() {
	dir, _ := os.MkdirTemp("", "grammarfile")
	defer os.RemoveAll(dir)
	for name, src := range map[string]string{
		"a.gbnf":        `root ::= [a-z]+`,
		"b.regex":       `[a-z]+@[a-z]+\.org`,
		"c.schema.json": `{"type": "string", "format": "date"}`,
		"d.lark":        "start: WORD+\n%import common.WORD\n%ignore \" \"\n",
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(src), 0o644)
		_, _, err := grammarfile.Compile(path, grammar.Options{})
		fmt.Println(name, grammarfile.Language(path), err == nil)
	}
	// Unordered output:
	// a.gbnf gbnf true
	// b.regex regex true
	// c.schema.json jsonschema true
	// d.lark lark true
}
