package grammar

import (
	"fmt"
	"unicode/utf8"
)

// token is a lexical token of the GBNF dialect.
type token int

const (
	tEOF     token = iota
	tNewline       // "\n" (comments and other white space are skipped)
	tIdent         // rule name, or a number inside "{...}"
	tString        // "..."; lit holds the decoded value
	tClass         // [...]; the scanner's class fields hold the value
	tDot           // .
	tDefine        // ::=
	tPipe          // |
	tLparen        // (
	tRparen        // )
	tStar          // *
	tPlus          // +
	tQuest         // ?
	tLbrace        // {
	tRbrace        // }
	tComma         // ,
	tIllegal       // a character that starts no token (already reported)
)

var tokenNames = [...]string{
	tEOF:     "end of file",
	tNewline: "newline",
	tIdent:   "name",
	tString:  "string literal",
	tClass:   "character class",
	tDot:     `"."`,
	tDefine:  `"::="`,
	tPipe:    `"|"`,
	tLparen:  `"("`,
	tRparen:  `")"`,
	tStar:    `"*"`,
	tPlus:    `"+"`,
	tQuest:   `"?"`,
	tLbrace:  `"{"`,
	tRbrace:  `"}"`,
	tComma:   `","`,
	tIllegal: "illegal character",
}

func (t token) String() string {
	if int(t) < len(tokenNames) {
		return tokenNames[t]
	}
	return fmt.Sprintf("token(%d)", int(t))
}

// scanner splits GBNF source into tokens. It is a value type: copying it
// saves its state, which the parser uses to look ahead (with quiet set so
// that errors are not reported twice).
type scanner struct {
	filename string
	src      []byte
	off      int // offset of the next unread byte
	line     int // line of src[off]
	lineOff  int // offset of the first byte of that line
	errs     *ErrorList
	quiet    bool

	// value of the last tClass token
	negate bool
	ranges []RuneRange
}

func newScanner(filename string, src []byte, errs *ErrorList) scanner {
	s := scanner{filename: filename, src: src, line: 1, errs: errs}
	// A UTF-8 byte order mark at the very start is not part of the text.
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		s.off = 3
		s.lineOff = 3
	}
	return s
}

func (s *scanner) pos(off int) Pos {
	return Pos{Filename: s.filename, Offset: off, Line: s.line, Col: off - s.lineOff + 1}
}

func (s *scanner) errorf(off int, format string, args ...any) {
	if !s.quiet {
		s.errs.Addf(s.pos(off), format, args...)
	}
}

// peekRune decodes the rune at s.off without consuming it; size is 0 at EOF.
// Invalid UTF-8 is reported (once per byte, when it is consumed) by next.
func (s *scanner) peekRune() (r rune, size int) {
	if s.off >= len(s.src) {
		return -1, 0
	}
	if c := s.src[s.off]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRune(s.src[s.off:])
}

// nextRune consumes one rune and reports invalid UTF-8.
func (s *scanner) nextRune() rune {
	r, size := s.peekRune()
	if size == 0 {
		return -1
	}
	if r == utf8.RuneError && size == 1 {
		s.errorf(s.off, "invalid UTF-8 encoding")
		// Skip the continuation bytes of a broken sequence: one error for it.
		for size < 4 && s.off+size < len(s.src) && s.src[s.off+size]&0xC0 == 0x80 {
			size++
		}
	}
	s.off += size
	return r
}

func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// scan returns the next token, its position, and for tIdent and tString its
// text (the decoded value for strings).
func (s *scanner) scan() (tok token, pos Pos, lit string) {
	// Skip white space and comments; a comment ends before its newline.
	for s.off < len(s.src) {
		c := s.src[s.off]
		if c == ' ' || c == '\t' || c == '\r' {
			s.off++
		} else if c == '#' {
			for s.off < len(s.src) && s.src[s.off] != '\n' {
				s.nextRune() // checks UTF-8 in comments too
			}
		} else {
			break
		}
	}
	off := s.off
	pos = s.pos(off)
	if s.off >= len(s.src) {
		return tEOF, pos, ""
	}
	c := s.src[s.off]
	switch {
	case c == '\n':
		s.off++
		s.line++
		s.lineOff = s.off
		return tNewline, pos, ""
	case isNameByte(c):
		for s.off < len(s.src) && isNameByte(s.src[s.off]) {
			s.off++
		}
		return tIdent, pos, string(s.src[off:s.off])
	case c == '"':
		return tString, pos, s.scanString()
	case c == '[':
		s.scanClass()
		return tClass, pos, ""
	case c == ':':
		if s.off+2 < len(s.src) && s.src[s.off+1] == ':' && s.src[s.off+2] == '=' {
			s.off += 3
			return tDefine, pos, ""
		}
	}
	if t := punct[c]; t != tEOF {
		s.off++
		return t, pos, ""
	}
	r, size := s.peekRune()
	s.nextRune() // reports invalid UTF-8
	if r == ':' {
		s.errorf(off, `unexpected ":" (did you mean "::="?)`)
	} else if r != utf8.RuneError || size > 1 {
		s.errorf(off, "unexpected character %q", r)
	}
	return tIllegal, pos, ""
}

// punct maps single-byte punctuation to its token (tEOF: none).
var punct = [256]token{'.': tDot, '|': tPipe, '(': tLparen, ')': tRparen, '*': tStar, '+': tPlus,
	'?': tQuest, '{': tLbrace, '}': tRbrace, ',': tComma}

// scanString scans a string literal starting at the opening quote and
// returns its decoded value. An unterminated literal (a newline or the end
// of the file before the closing quote) is reported at the opening quote.
func (s *scanner) scanString() string {
	start := s.off
	s.off++ // opening quote
	var buf []byte
	for {
		r, size := s.peekRune()
		if size == 0 || r == '\n' {
			s.errorf(start, "unterminated string literal")
			return string(buf)
		}
		if r == '"' {
			s.off++
			return string(buf)
		}
		if r == '\\' {
			esc := s.off
			if v, ok := s.scanEscape(); ok {
				if surrogateMin <= v && v <= surrogateMax {
					s.errorf(esc, "bad escape: surrogate U+%04X has no UTF-8 encoding", v)
					continue
				}
				buf = utf8.AppendRune(buf, v)
			}
			continue
		}
		r = s.nextRune()
		buf = utf8.AppendRune(buf, r)
	}
}

// scanEscape scans an escape sequence at a backslash and returns the code
// point it denotes. \xNN, \uNNNN and \UNNNNNNNN denote code points (so "\xE9"
// is é, two bytes in UTF-8), never raw bytes. On a bad escape it reports an
// error at the backslash and returns ok=false, having consumed the backslash
// and perhaps some hex digits, never a newline (so a literal's end is still
// found).
func (s *scanner) scanEscape() (v rune, ok bool) {
	start := s.off
	s.off++ // backslash
	if s.off >= len(s.src) {
		s.errorf(start, "bad escape: backslash at end of file")
		return 0, false
	}
	c := s.src[s.off]
	n := 0
	switch c {
	case 'x':
		n = 2
	case 'u':
		n = 4
	case 'U':
		n = 8
	case 't':
		s.off++
		return '\t', true
	case 'r':
		s.off++
		return '\r', true
	case 'n':
		s.off++
		return '\n', true
	case '\\', '"', '\'', '[', ']', '-', '^', '/':
		s.off++
		return rune(c), true
	default:
		r, _ := s.peekRune()
		if r == '\n' {
			s.errorf(start, "bad escape: backslash at end of line")
		} else {
			s.errorf(start, "bad escape %q", `\`+string(r))
		}
		return 0, false
	}
	s.off++
	var x uint32
	for i := 0; i < n; i++ {
		if s.off >= len(s.src) || hexVal(s.src[s.off]) < 0 {
			s.errorf(start, `bad escape: \%c needs %d hexadecimal digits`, c, n)
			return 0, false
		}
		x = x<<4 | uint32(hexVal(s.src[s.off]))
		s.off++
	}
	if x > utf8.MaxRune {
		s.errorf(start, "bad escape: U+%X is beyond U+10FFFF", x)
		return 0, false
	}
	return rune(x), true
}

func hexVal(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// scanClass scans a character class starting at "[" into s.negate and
// s.ranges. Errors: unterminated (newline or end of file before "]"),
// empty "[]" or "[^]", inverted range.
func (s *scanner) scanClass() {
	start := s.off
	s.off++ // [
	s.negate = false
	s.ranges = nil
	if s.off < len(s.src) && s.src[s.off] == '^' {
		s.negate = true
		s.off++
	}
	bad := false
	for {
		lo, hi, res := s.classItem()
		switch res {
		case classEOL:
			s.errorf(start, "unterminated character class")
			return
		case classEnd:
			s.off++
			if len(s.ranges) == 0 && !bad {
				s.errorf(start, "empty character class")
			}
			return
		case classBad:
			bad = true
		default:
			s.ranges = append(s.ranges, RuneRange{lo, hi})
		}
	}
}

// A classResult says what classChar or classItem found.
type classResult int

const (
	classChar classResult = iota // a character or range
	classEnd                     // the closing "]", not consumed
	classBad                     // a bad escape or inverted range, reported
	classEOL                     // a newline or the end of the file
)

// classItem scans one item of a character class: a character, or a range
// lo-hi. "-" makes a range unless it is last ("[a-]" holds "a" and "-").
func (s *scanner) classItem() (lo, hi rune, res classResult) {
	off := s.off
	if lo, res = s.classChar(); res != classChar {
		return 0, 0, res
	}
	if !(s.off+1 < len(s.src) && s.src[s.off] == '-' && s.src[s.off+1] != ']') {
		return lo, lo, classChar
	}
	s.off++
	if hi, res = s.classChar(); res != classChar {
		return 0, 0, res
	}
	if hi < lo {
		s.errorf(off, "inverted range in character class: %q > %q", lo, hi)
		return 0, 0, classBad
	}
	return lo, hi, classChar
}

// classChar scans one character of a class, literal or escaped.
func (s *scanner) classChar() (rune, classResult) {
	r, size := s.peekRune()
	switch {
	case size == 0 || r == '\n':
		return 0, classEOL
	case r == ']':
		return 0, classEnd
	case r == '\\':
		if v, ok := s.scanEscape(); ok {
			return v, classChar
		}
		return 0, classBad
	}
	return s.nextRune(), classChar
}
