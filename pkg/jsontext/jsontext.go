// Package jsontext rewrites JSON text byte by byte where encoding/json
// cannot: blanking the // comments of a configuration file, replacing the
// -Infinity that Python writes. The rewrites keep every byte offset, so
// that encoding/json's errors on the result point into the text the user
// wrote.
//
// Strings tells, byte by byte, whether the text is inside a string
// literal, where such a rewrite must not look:
//
//	var s jsontext.Strings
//	for i, c := range text {
//		if s.Outside(c) && c == '#' {
//			text[i] = ' ' // a '#' outside strings
//		}
//	}
package jsontext

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// A Strings tracks whether JSON text, read byte by byte, is inside a string
// literal. The zero value is at the start of a text.
type Strings struct {
	in, esc bool
}

// Outside reads c, the next byte of the text, and reports whether it lies
// outside string literals. A string's quotes lie inside it.
func (s *Strings) Outside(c byte) bool {
	switch {
	case s.esc:
		s.esc = false
	case s.in && c == '\\':
		s.esc = true
	case c == '"':
		s.in = !s.in
	case !s.in:
		return true
	}
	return false
}

// StripComments returns data with its // comments outside strings blanked
// (each byte to the end of the line becomes a space).
func StripComments(data []byte) []byte {
	out := slices.Clone(data)
	var s Strings
	for i := 0; i < len(out); i++ {
		if s.Outside(out[i]) && out[i] == '/' && i+1 < len(out) && out[i+1] == '/' {
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		}
	}
	return out
}

// ErrorPosition returns the 1-based line and column (in bytes) in data
// where encoding/json's error err occurred: a syntax or type error at its
// offset, a truncated text at its end; or where DuplicateKey's did. ok is
// false for other errors.
func ErrorPosition(data []byte, err error) (line, col int, ok bool) {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
		dup *DuplicateKeyError
	)
	switch {
	case errors.As(err, &syn):
		line, col = position(data, syn.Offset)
	case errors.As(err, &typ):
		line, col = position(data, typ.Offset)
	case errors.As(err, &dup):
		line, col = position(data, dup.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		line, col = position(data, int64(len(data)))
	default:
		return 0, 0, false
	}
	return line, col, true
}

// position converts a byte offset in data to a 1-based line and column.
// The offset of a json.SyntaxError is just past the offending byte, so it
// names that byte's position.
func position(data []byte, offset int64) (line, col int) {
	offset = max(0, min(offset, int64(len(data))))
	before := data[:offset]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, max(col, 1)
}

// A DuplicateKeyError is a key given a second time in one object.
type DuplicateKeyError struct {
	Key    string // the second key
	First  string // the first, which differs from Key in case only, or equals it
	Offset int64  // just past the second key's opening quote, as json.SyntaxError's
}

func (e *DuplicateKeyError) Error() string {
	if e.First != e.Key {
		return fmt.Sprintf("key %q given twice (as %q before; keys match whatever their case)", e.Key, e.First)
	}
	return fmt.Sprintf("key %q given twice", e.Key)
}

// DuplicateKey returns a *DuplicateKeyError for the first key of data given
// twice in one object, nil if there is none. encoding/json keeps the last
// value of such a key silently, and matches a key to a struct field
// whatever its case, so that keys equal but for case count as the same. A
// text that is not JSON is no error of DuplicateKey's: the decoder reports
// where it is malformed.
func DuplicateKey(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	// One frame per open object or array: an object's keys, folded, to
	// their spelling; keys is nil in an array.
	type frame struct {
		keys    map[string]string
		wantKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if top != nil && top.keys != nil && top.wantKey {
			key, _ := tok.(string)
			folded := strings.ToLower(key)
			if first, ok := top.keys[folded]; ok {
				return &DuplicateKeyError{Key: key, First: first, Offset: keyStart(data, dec.InputOffset()) + 1}
			}
			top.keys[folded] = key
			top.wantKey = false
			continue
		}
		if top != nil {
			top.wantKey = true // a value, or the start of one
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]string{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		}
	}
}

// keyStart returns the offset of the opening quote of the string literal
// in data that ends just before end.
func keyStart(data []byte, end int64) int64 {
	for i := end - 2; i >= 0; i-- {
		if data[i] != '"' {
			continue
		}
		backslashes := 0
		for j := i - 1; j >= 0 && data[j] == '\\'; j-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return i
		}
	}
	return 0
}
