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
	"io"
	"slices"
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
// offset, a truncated text at its end. ok is false for other errors.
func ErrorPosition(data []byte, err error) (line, col int, ok bool) {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syn):
		line, col = position(data, syn.Offset)
	case errors.As(err, &typ):
		line, col = position(data, typ.Offset)
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
