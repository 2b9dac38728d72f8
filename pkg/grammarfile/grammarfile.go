// Package grammarfile compiles a constraint file in whichever language its
// name says, so that every command and configuration that takes a grammar
// takes any of them:
//
//	*.json (such as x.schema.json)  JSON Schema (pkg/jsonschema)
//	*.regex                         a regular expression, matched as a whole (pkg/regex, Full mode)
//	*.lark                          a Lark grammar (pkg/lark), from the rule "start" or Options.Start
//	anything else (.gbnf, .ebnf)    GBNF (pkg/grammar)
//
// All four compile to the same byte-level grammar.Grammar, and their
// errors are grammar.ErrorLists: file:line:col for GBNF and regular
// expressions and Lark, file#/json/pointer for schemas.
package grammarfile

import (
	"fmt"
	"strings"

	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/jsonschema"
	"github.com/gasplab/gasp/pkg/lark"
	"github.com/gasplab/gasp/pkg/regex"
)

// Language names the language of the file at path, by its extension:
// "jsonschema", "regex", "lark" or "gbnf".
func Language(path string) string {
	switch {
	case strings.HasSuffix(path, ".json"):
		return "jsonschema"
	case strings.HasSuffix(path, ".regex"):
		return "regex"
	case strings.HasSuffix(path, ".lark"):
		return "lark"
	}
	return "gbnf"
}

// Compile compiles the file at path. opts applies to GBNF; Start also
// names a Lark grammar's start rule. Lenient has no effect on the other
// languages, and a Start rule for JSON Schema or a regular expression is an
// error. Warnings come from GBNF only.
func Compile(path string, opts grammar.Options) (*grammar.Grammar, grammar.ErrorList, error) {
	if err := checkOptions(path, opts); err != nil {
		return nil, nil, err
	}
	switch Language(path) {
	case "jsonschema":
		g, err := jsonschema.CompileFile(path)
		return g, nil, err
	case "regex":
		g, err := regex.CompileFile(path)
		return g, nil, err
	case "lark":
		g, err := lark.CompileFile(path, opts.Start)
		return g, nil, err
	}
	return grammar.CompileFile(path, opts)
}

// CompileSource compiles src, the contents of a file named name (whose
// extension picks the language), as Compile does.
func CompileSource(name string, src []byte, opts grammar.Options) (*grammar.Grammar, grammar.ErrorList, error) {
	if err := checkOptions(name, opts); err != nil {
		return nil, nil, err
	}
	switch Language(name) {
	case "jsonschema":
		g, err := jsonschema.Compile(name, src)
		return g, nil, err
	case "regex":
		g, err := regex.Compile(name, regex.TrimNewline(string(src)), regex.Full)
		return g, nil, err
	case "lark":
		g, err := lark.Compile(name, src, opts.Start)
		return g, nil, err
	}
	return grammar.Compile(name, src, opts)
}

func checkOptions(path string, opts grammar.Options) error {
	if lang := Language(path); lang != "gbnf" && lang != "lark" && opts.Start != "" {
		return fmt.Errorf("%s: a start rule applies to GBNF grammars, not to a %s file", path, lang)
	}
	return nil
}
