package tokenizer

import (
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// rawJSON keeps the bytes of a JSON value as a part of the input, without
// the copy that json.RawMessage makes: Parse reads model.vocab and
// model.merges (nine tenths of Llama 3's 9 MB tokenizer.json) with a
// jsonReader, several times faster than encoding/json.
type rawJSON []byte

func (r *rawJSON) UnmarshalJSON(b []byte) error {
	*r = b // a part of the input of json.Unmarshal, which outlives Parse's use of it
	return nil
}

// A jsonReader reads JSON values of expected shapes from data, a part of
// file that encoding/json has checked to be valid JSON; still, it returns
// errors rather than panicking on anything else.
type jsonReader struct {
	file []byte // the whole input, for positions in errors
	base int    // data is file[base:...], or -1
	data []byte
	i    int
	buf  []byte // scratch for strings with escapes
}

func newJSONReader(file, data []byte) *jsonReader {
	base := -1
	if len(data) > 0 {
		// data shares file's array: it starts cap(file)-cap(data) bytes in.
		if b := cap(file) - cap(data); b >= 0 && b < len(file) && &file[b] == &data[0] {
			base = b
		}
	}
	return &jsonReader{file: file, base: base, data: data}
}

// errorf returns an error at the reader's position, with its line and
// column in file.
func (r *jsonReader) errorf(format string, args ...any) error {
	err := errors.New(fmt.Sprintf(format, args...))
	if r.base >= 0 {
		return jsonErrorAt(r.file, int64(r.base+r.i+1), err)
	}
	return jsonErrorAt(r.data, int64(r.i+1), err)
}

func (r *jsonReader) ws() {
	for r.i < len(r.data) {
		switch r.data[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, 0 at the end.
func (r *jsonReader) peek() byte {
	r.ws()
	if r.i >= len(r.data) {
		return 0
	}
	return r.data[r.i]
}

func (r *jsonReader) expect(c byte, what string) error {
	if r.peek() != c {
		return r.errorf("want %s", what)
	}
	r.i++
	return nil
}

// str reads a string.
func (r *jsonReader) str() (string, error) {
	if r.peek() != '"' {
		return "", r.errorf("want a string")
	}
	r.i++
	start := r.i
	for r.i < len(r.data) {
		c := r.data[r.i]
		switch {
		case c == '"':
			s := r.data[start:r.i]
			r.i++
			if utf8.Valid(s) {
				return string(s), nil
			}
			r.i = start
			return r.strSlow()
		case c == '\\':
			r.i = start
			return r.strSlow()
		}
		r.i++
	}
	return "", r.errorf("unterminated string")
}

// strSlow reads the rest of a string that has escapes or invalid UTF-8,
// decoding them as encoding/json does (an invalid byte or a lone surrogate
// becomes U+FFFD).
func (r *jsonReader) strSlow() (string, error) {
	b := r.buf[:0]
	for r.i < len(r.data) {
		c := r.data[r.i]
		switch {
		case c == '"':
			r.i++
			r.buf = b
			return string(b), nil
		case c == '\\':
			if r.i+1 >= len(r.data) {
				return "", r.errorf("unterminated string")
			}
			e := r.data[r.i+1]
			r.i += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r1, ok := r.hex4()
				if !ok {
					return "", r.errorf("bad \\u escape")
				}
				if utf16.IsSurrogate(r1) {
					save := r.i
					if r.i+1 < len(r.data) && r.data[r.i] == '\\' && r.data[r.i+1] == 'u' {
						r.i += 2
						if r2, ok := r.hex4(); ok {
							if dec := utf16.DecodeRune(r1, r2); dec != utf8.RuneError {
								b = utf8.AppendRune(b, dec)
								continue
							}
						}
					}
					r.i = save
					r1 = utf8.RuneError
				}
				b = utf8.AppendRune(b, r1)
			default:
				return "", r.errorf("bad escape \\%c", e)
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			r.i++
		default:
			rn, size := utf8.DecodeRune(r.data[r.i:])
			b = utf8.AppendRune(b, rn) // RuneError for an invalid byte
			r.i += size
		}
	}
	return "", r.errorf("unterminated string")
}

func (r *jsonReader) hex4() (rune, bool) {
	if r.i+4 > len(r.data) {
		return 0, false
	}
	var v rune
	for _, c := range r.data[r.i : r.i+4] {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			v = v<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	r.i += 4
	return v, true
}

// int reads a non-negative integer up to maxID.
func (r *jsonReader) int() (int, error) {
	r.ws()
	start := r.i
	v := 0
	for r.i < len(r.data) && '0' <= r.data[r.i] && r.data[r.i] <= '9' {
		v = v*10 + int(r.data[r.i]-'0')
		r.i++
		if v > maxID {
			r.i = start
			return 0, r.errorf("token id out of range [0, %d]", maxID)
		}
	}
	if r.i == start || r.i < len(r.data) && (r.data[r.i] == '.' || r.data[r.i] == 'e' || r.data[r.i] == 'E') {
		r.i = start
		return 0, r.errorf("want a token id (an integer in [0, %d])", maxID)
	}
	return v, nil
}

// object reads an object whose values are token ids, calling f with each
// member.
func (r *jsonReader) object(f func(key string, id int) error) error {
	return r.list('{', '}', "an object", func() error {
		k, err := r.str()
		if err != nil {
			return err
		}
		if err := r.expect(':', "':'"); err != nil {
			return err
		}
		id, err := r.int()
		if err != nil {
			return err
		}
		return f(k, id)
	})
}

// merges reads an array of merges, each a string "a b" or a pair of
// strings ["a", "b"], calling f with each.
func (r *jsonReader) merges(f func(a, b string) error) error {
	return r.list('[', ']', "an array of merges", func() error {
		a, b, err := r.merge()
		if err != nil {
			return err
		}
		return f(a, b)
	})
}

// list reads the elements of an array or object, delimited by open and
// end (what names it in errors), calling elem to read each.
func (r *jsonReader) list(open, end byte, what string, elem func() error) error {
	if err := r.expect(open, what); err != nil {
		return err
	}
	if r.peek() == end {
		r.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch r.peek() {
		case ',':
			r.i++
		case end:
			r.i++
			return nil
		default:
			return r.errorf("want ',' or '%c'", end)
		}
	}
}

// merge reads one merge, "a b" or ["a", "b"].
func (r *jsonReader) merge() (a, b string, err error) {
	if r.peek() != '[' {
		start := r.i
		s, err := r.str()
		if err != nil {
			return "", "", r.errorf("want a merge, \"a b\" or [\"a\", \"b\"]")
		}
		a, b, ok := cutSpace(s)
		if !ok {
			r.i = start
			return "", "", r.errorf("merge %q: want two tokens separated by one space", s)
		}
		return a, b, nil
	}
	r.i++
	const pair = "a pair of tokens [\"a\", \"b\"]"
	if a, err = r.str(); err != nil {
		return "", "", err
	}
	if err := r.expect(',', pair); err != nil {
		return "", "", err
	}
	if b, err = r.str(); err != nil {
		return "", "", err
	}
	if err := r.expect(']', pair); err != nil {
		return "", "", err
	}
	return a, b, nil
}

// cutSpace splits "a b" at its one space.
func cutSpace(s string) (a, b string, ok bool) {
	n := 0
	at := -1
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			n++
			at = i
		}
	}
	if n != 1 || at == 0 || at == len(s)-1 {
		return "", "", false
	}
	return s[:at], s[at+1:], true
}
