package lark

import (
	"fmt"
	"strings"

	"github.com/gasplab/gasp/pkg/grammar"
)

// The scanner splits a grammar into the tokens of Lark's own grammar
// syntax (lark/load_grammar.py): names, "strings"i, /regexps/flags, numbers,
// punctuation, %directives and newlines. Spaces, tabs, // comments and a
// backslash before a newline are skipped; a newline is skipped too when the
// next line (after blank and comment lines) starts with "|", which continues
// the definition.

type tokKind int

const (
	tEOF tokKind = iota
	tNewline
	tName
	tString
	tRegexp
	tNumber
	tPunct
	tDirective
)

func (k tokKind) String() string {
	return [...]string{"end of file", "newline", "name", "string", "regular expression", "number", "punctuation", "directive"}[k]
}

type token struct {
	kind tokKind
	text string
	p    grammar.Pos
}

func (t token) String() string {
	switch t.kind {
	case tEOF, tNewline:
		return t.kind.String()
	}
	return fmt.Sprintf("%q", t.text)
}

// isTerminal reports whether a name token names a terminal (upper case).
func (t token) isTerminal() bool { return isTerminalName(t.text) }

func isTerminalName(s string) bool {
	s = strings.TrimPrefix(s, "_")
	return s != "" && s[0] >= 'A' && s[0] <= 'Z'
}

type scanner struct {
	filename  string
	src       string
	off       int
	line, col int
}

func (s *scanner) pos() grammar.Pos {
	return grammar.Pos{Filename: s.filename, Offset: s.off, Line: s.line, Col: s.col}
}

// advance moves over n bytes, counting lines and columns (in bytes).
func (s *scanner) advance(n int) {
	for _, c := range []byte(s.src[s.off : s.off+n]) {
		if c == '\n' {
			s.line, s.col = s.line+1, 1
		} else {
			s.col++
		}
	}
	s.off += n
}

func (s *scanner) errorf(p grammar.Pos, format string, args ...any) *grammar.Error {
	return &grammar.Error{Pos: p, Msg: fmt.Sprintf(format, args...)}
}

// skipBlank skips spaces, tabs, comments and backslash-newlines; with
// newlines, also line breaks.
func (s *scanner) skipBlank(newlines bool) {
	for s.off < len(s.src) {
		rest := s.src[s.off:]
		switch {
		case rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\r' && len(rest) > 1 && rest[1] == '\n' && newlines:
			s.advance(1)
		case rest[0] == '\n' && newlines:
			s.advance(1)
		case strings.HasPrefix(rest, "//"):
			s.advance(len(lineOf(rest)))
		case rest[0] == '\\' && strings.HasPrefix(strings.TrimLeft(rest[1:], " "), "\n"):
			s.advance(len(rest) - len(strings.TrimLeft(rest[1:], " ")) + 1)
		default:
			return
		}
	}
}

func lineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

const punct1 = ":|()[]{},.~+*?!"

func (s *scanner) next() (token, *grammar.Error) {
	s.skipBlank(false)
	p := s.pos()
	if s.off >= len(s.src) {
		return token{kind: tEOF, p: p}, nil
	}
	rest := s.src[s.off:]
	if rest[0] == '\n' || strings.HasPrefix(rest, "\r\n") {
		s.skipBlank(true)
		if s.off < len(s.src) && s.src[s.off] == '|' {
			return s.next()
		}
		return token{kind: tNewline, p: p}, nil
	}
	n, kind := 0, tPunct
	switch c := rest[0]; {
	case c == '"':
		n, kind = quoted(rest, '"'), tString
		if n > 0 && n < len(rest) && rest[n] == 'i' {
			n++
		}
	case c == '/':
		n, kind = quoted(rest, '/'), tRegexp
		for n > 0 && n < len(rest) && strings.IndexByte("imslux", rest[n]) >= 0 {
			n++
		}
	case c == '%':
		n, kind = 1+nameLen(rest[1:]), tDirective
	case c == '_' || isLetter(c):
		n, kind = nameLen(rest), tName
	case c >= '0' && c <= '9' || (c == '-' || c == '+') && len(rest) > 1 && rest[1] >= '0' && rest[1] <= '9':
		n, kind = 1, tNumber
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
	case strings.HasPrefix(rest, "->") || strings.HasPrefix(rest, ".."):
		n = 2
	case strings.IndexByte(punct1, c) >= 0:
		n = 1
	}
	if n <= 0 {
		switch rest[0] {
		case '"', '/':
			return token{}, s.errorf(p, "unterminated %s", map[byte]string{'"': "string", '/': "regular expression"}[rest[0]])
		}
		return token{}, s.errorf(p, "unexpected character %q", []rune(rest)[0])
	}
	t := token{kind: kind, text: rest[:n], p: p}
	s.advance(n)
	return t, nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func nameLen(s string) int {
	n := 0
	for n < len(s) && (s[n] == '_' || isLetter(s[n]) || s[n] >= '0' && s[n] <= '9') {
		n++
	}
	return n
}

// quoted returns the length of the string or regexp literal s starts with
// (delimited by q; a backslash escapes q and itself), or 0 if it is
// unterminated. A string cannot hold a newline.
func quoted(s string, q byte) int {
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && (s[i+1] == q || s[i+1] == '\\'):
			i++
		case s[i] == q:
			return i + 1
		case s[i] == '\n' && q == '"':
			return 0
		}
	}
	return 0
}
