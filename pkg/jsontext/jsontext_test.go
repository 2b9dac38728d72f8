package jsontext_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/jsontext"
)

func TestStripComments(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"{\"a\\\"//\": 1} // x\n", "{\"a\\\"//\": 1}     \n"},
		{"// all\n{}", "      \n{}"},
		{`{"u": "http://x"} //`, `{"u": "http://x"}   `},
		{`{"e": "\\"} // c`, `{"e": "\\"}     `},
		{"/", "/"},
		{`"unterminated //`, `"unterminated //`},
	} {
		if got := string(jsontext.StripComments([]byte(tt.in))); got != tt.want {
			t.Errorf("StripComments(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStringsOutside(t *testing.T) {
	text := `a"b\"c\\"d`
	want := "+--------+" // the quotes and everything between them lie inside
	var s jsontext.Strings
	got := ""
	for i := range len(text) {
		if s.Outside(text[i]) {
			got += "+"
		} else {
			got += "-"
		}
	}
	if got != want {
		t.Errorf("Outside over %q = %s, want %s", text, got, want)
	}
}

func ExampleStripComments() {
	config := []byte(`{
  "name": "quick", // the paper's quick grid
  "url": "http://example.com"
}`)
	out := jsontext.StripComments(config)
	var c struct{ Name, URL string }
	err := json.Unmarshal(out, &c)
	fmt.Println(c.Name, c.URL, err, len(out) == len(config))
	// Output: quick http://example.com <nil> true
}

func TestErrorPosition(t *testing.T) {
	for _, tt := range []struct {
		text      string
		line, col int
	}{
		{"{\n  \"a\": 1,\n  \"b\": x\n}", 3, 8}, // syntax error at the x
		{"{\n  \"n\": \"s\"\n}", 2, 10},         // a string where a number goes: its last byte
		{"{\n  \"n\": 1", 2, 8},                 // truncated: its last byte
	} {
		var v struct{ N int }
		err := json.NewDecoder(strings.NewReader(tt.text)).Decode(&v)
		line, col, ok := jsontext.ErrorPosition([]byte(tt.text), err)
		if !ok || line != tt.line || col != tt.col {
			t.Errorf("%q: %v at %d:%d (ok %v), want %d:%d", tt.text, err, line, col, ok, tt.line, tt.col)
		}
	}
	if _, _, ok := jsontext.ErrorPosition(nil, errors.New("other")); ok {
		t.Error("a non-JSON error has a position")
	}
}

// TestDuplicateKey: a key given twice in an object, or twice but for its
// case (which encoding/json decodes into one struct field), is an error at
// the second key; equal keys in different objects are not.
func TestDuplicateKey(t *testing.T) {
	for _, tt := range []struct {
		text      string
		line, col int
		want      string
	}{
		{"{\n  \"a\": 1,\n  \"a\": 2\n}", 3, 3, `key "a" given twice`},
		{"{\"a\": 1, \"b\": {\"c\": 1, \"c\": [1]}}", 1, 24, `key "c" given twice`},
		{"{\"runs\": 1,\n \"Runs\": 2}", 2, 2, `key "Runs" given twice (as "runs" before; keys match whatever their case)`},
		{"[{\"a\": 1}, {\"a\": 1, \"\\u0061\": 2}]", 1, 21, `key "a" given twice`},
	} {
		err := jsontext.DuplicateKey([]byte(tt.text))
		line, col, ok := jsontext.ErrorPosition([]byte(tt.text), err)
		if err == nil || err.Error() != tt.want || !ok || line != tt.line || col != tt.col {
			t.Errorf("%q: %v at %d:%d (ok %v), want %q at %d:%d", tt.text, err, line, col, ok, tt.want, tt.line, tt.col)
		}
	}
	for _, text := range []string{`{"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]}`, `[1, "a", "a"]`, `{"a": 1,`, `"s"`} {
		if err := jsontext.DuplicateKey([]byte(text)); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
}
