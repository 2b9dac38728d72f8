package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Kind is the type of a JSON value.
type Kind int

const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// Value is a JSON value that keeps the order of object members (the schema
// order of properties is the order instances are written in).
type Value struct {
	Kind Kind
	Bool bool
	Num  string // the number's literal text
	Str  string
	Arr  []*Value
	Obj  []Member
}

// Member is an object member.
type Member struct {
	Key string
	Val *Value
}

// Get returns the member named key, or nil.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for _, m := range v.Obj {
		if m.Key == key {
			return m.Val
		}
	}
	return nil
}

// ParseValue parses one JSON text. Duplicate member names are an error.
// A text that is not JSON is a *SyntaxError.
func ParseValue(src []byte) (*Value, error) {
	d := json.NewDecoder(bytes.NewReader(src))
	d.UseNumber()
	v, err := parseValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, &SyntaxError{d.InputOffset(), "text after the JSON value"}
	}
	return v, nil
}

// SyntaxError is a JSON text ParseValue cannot read: what is wrong, and
// where, as the offset of the byte it was found at (Compile turns that
// into a line and column).
type SyntaxError struct {
	Offset int64
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg) }

// syntaxError returns err, from reading d, as a *SyntaxError.
func syntaxError(d *json.Decoder, err error) error {
	var se *SyntaxError
	var js *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return se
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return &SyntaxError{d.InputOffset(), "unexpected end of input"}
	case errors.As(err, &js):
		return &SyntaxError{js.Offset, js.Error()}
	}
	return &SyntaxError{d.InputOffset(), err.Error()}
}

// token reads d's next token; an error is a *SyntaxError.
func token(d *json.Decoder) (json.Token, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, syntaxError(d, err)
	}
	return tok, nil
}

func parseValue(d *json.Decoder) (*Value, error) {
	tok, err := token(d)
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &Value{Kind: Null}, nil
	case bool:
		return &Value{Kind: Bool, Bool: t}, nil
	case json.Number:
		return &Value{Kind: Number, Num: string(t)}, nil
	case string:
		return &Value{Kind: String, Str: t}, nil
	case json.Delim:
		if t == '[' {
			v := &Value{Kind: Array, Arr: []*Value{}}
			for d.More() {
				e, err := parseValue(d)
				if err != nil {
					return nil, err
				}
				v.Arr = append(v.Arr, e)
			}
			if _, err := token(d); err != nil {
				return nil, err
			}
			return v, nil
		}
		v := &Value{Kind: Object, Obj: []Member{}}
		for d.More() {
			k, err := token(d)
			if err != nil {
				return nil, err
			}
			key := k.(string)
			if v.Get(key) != nil {
				return nil, &SyntaxError{d.InputOffset(), fmt.Sprintf("duplicate member %q", key)}
			}
			e, err := parseValue(d)
			if err != nil {
				return nil, err
			}
			v.Obj = append(v.Obj, Member{key, e})
		}
		if _, err := token(d); err != nil {
			return nil, err
		}
		return v, nil
	}
	return nil, &SyntaxError{d.InputOffset(), fmt.Sprintf("unexpected %v", tok)}
}

// Canonical returns the canonical text of v, the form compiled grammars
// accept: no whitespace, members in v's order, strings as writeString
// spells them, numbers as canonicalNumber does.
func Canonical(v *Value) string {
	var b strings.Builder
	writeValue(&b, v, canonicalNumber)
	return b.String()
}

// writeValue writes v compactly, its numbers as number spells them.
func writeValue(b *strings.Builder, v *Value, number func(string) string) {
	switch v.Kind {
	case Null:
		b.WriteString("null")
	case Bool:
		b.WriteString(strconv.FormatBool(v.Bool))
	case Number:
		b.WriteString(number(v.Num))
	case String:
		writeString(b, v.Str)
	case Array:
		b.WriteByte('[')
		for i, e := range v.Arr {
			if i > 0 {
				b.WriteByte(',')
			}
			writeValue(b, e, number)
		}
		b.WriteByte(']')
	case Object:
		b.WriteByte('{')
		for i, m := range v.Obj {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, m.Key)
			b.WriteByte(':')
			writeValue(b, m.Val, number)
		}
		b.WriteByte('}')
	}
}

// escapeOf returns the canonical escape of r, or "" if r is written as
// itself: \" \\ \b \f \n \r \t, and \u00xx (lower-case hex) for the other
// control characters.
func escapeOf(r rune) string {
	switch r {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	if r < 0x20 {
		return fmt.Sprintf(`\u%04x`, r)
	}
	return ""
}

func writeString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		if e := escapeOf(r); e != "" {
			b.WriteString(e)
		} else {
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// maxExponent bounds the exponents canonicalNumber expands.
const maxExponent = 400

// canonicalNumber writes a JSON number literal in plain decimal form:
// "-" only for a negative value, no leading zeros, no exponent, no
// trailing fractional zeros ("1.50e1" is "15", "-0.0" is "0"). A literal
// whose exponent exceeds ±maxExponent is kept as written.
func canonicalNumber(lit string) string {
	neg := strings.HasPrefix(lit, "-")
	s := strings.TrimPrefix(lit, "-")
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > maxExponent || e < -maxExponent {
			return lit
		}
		exp, s = e, s[:i]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	digits := intPart + frac
	point := len(intPart) + exp // position of the decimal point in digits
	for point < 0 {
		digits, point = "0"+digits, point+1
	}
	for point > len(digits) {
		digits += "0"
	}
	ip := strings.TrimLeft(digits[:point], "0")
	fp := strings.TrimRight(digits[point:], "0")
	if ip == "" {
		ip = "0"
	}
	out := ip
	if fp != "" {
		out += "." + fp
	}
	if neg && out != "0" {
		out = "-" + out
	}
	return out
}
