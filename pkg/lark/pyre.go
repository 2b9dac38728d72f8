package lark

import (
	"fmt"
	"regexp/syntax"
	"strings"
)

// Lark's /regexp/ terminals are Python regular expressions; pkg/regex reads
// Go's RE2 syntax. pyToGo rewrites the constructs whose meaning differs and
// refuses those with no exact RE2 form:
//
//   - \d \w \s (and \D \W \S) are Unicode classes in Python (for str
//     patterns): \d is \p{Nd}, \w is [\p{L}\p{N}_], \s is the characters
//     str.isspace() accepts. Inside a [...] class \S and \W have no RE2
//     spelling and are errors.
//   - x{,n} is x{0,n} in Python, a literal in RE2.
//   - POSIX classes [[:alpha:]], \p{...}, \Q...\E and \z are RE2-only;
//     \Z, \b, \B, octal escapes and backreferences are Python-only: errors.
//   - Flags: i and s map to (?i) and (?s); u (Unicode, the default) is
//     accepted; m changes only anchors, which are errors anyway; l and x
//     are errors.
//
// Anchors and lazy quantifiers are refused by checkRE, on the RE2 tree.

// pySpace is the set of characters Python's \s matches in a str pattern.
const pySpace = `\t\n\x0b\x0c\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`

const pyWord = `\p{L}\p{N}_`

func pyToGo(pattern, flags string) (string, error) {
	var b strings.Builder
	for _, f := range flags {
		switch f {
		case 'i', 's':
			b.WriteString("(?" + string(f) + ")")
		case 'l', 'x':
			return "", fmt.Errorf("the regexp flag %c is not supported", f)
		}
	}
	inClass := false
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern):
			i++
			s, err := pyEscape(pattern[i], inClass)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
			continue
		case c == '\\':
			return "", fmt.Errorf("regexp ends with a lone backslash")
		case !inClass && c == '[':
			inClass = true
			b.WriteByte(c)
			// A ] right after [ or [^ is a literal in both dialects.
			if strings.HasPrefix(pattern[i+1:], "^") {
				i++
				b.WriteByte('^')
			}
			if strings.HasPrefix(pattern[i+1:], "]") {
				i++
				b.WriteString(`\]`)
			}
			continue
		case inClass && c == '[' && strings.HasPrefix(pattern[i+1:], ":"):
			return "", fmt.Errorf("[: in a class: POSIX classes are not Python syntax")
		case inClass && c == ']':
			inClass = false
		case !inClass && c == '{' && strings.HasPrefix(pattern[i+1:], ","):
			if j := strings.IndexByte(pattern[i:], '}'); j > 2 && isDigits(pattern[i+2:i+j]) {
				b.WriteString("{0")
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// pyEscape spells Python's escape \c in RE2.
func pyEscape(c byte, inClass bool) (string, error) {
	wrap := func(set string, negate bool) (string, error) {
		switch {
		case inClass && negate:
			return "", fmt.Errorf(`\%c inside a [...] class is not supported`, c)
		case inClass:
			return set, nil
		case negate:
			return "[^" + set + "]", nil
		}
		return "[" + set + "]", nil
	}
	switch c {
	case 'd':
		return `\p{Nd}`, nil
	case 'D':
		return `\P{Nd}`, nil
	case 's', 'S':
		return wrap(pySpace, c == 'S')
	case 'w', 'W':
		return wrap(pyWord, c == 'W')
	case 'p', 'P', 'Q', 'E', 'z', 'C':
		return "", fmt.Errorf(`\%c is not Python regexp syntax`, c)
	case 'Z', 'A', 'b', 'B':
		return "", fmt.Errorf(`\%c (an anchor or word boundary) is not supported`, c)
	}
	if c >= '0' && c <= '9' {
		return "", fmt.Errorf(`\%c: backreferences and octal escapes are not supported`, c)
	}
	if c >= 0x80 {
		return "", fmt.Errorf(`a backslash before a non-ASCII character is not supported`)
	}
	return `\` + string(c), nil
}

// checkRE refuses what the RE2 tree holds that Lark's lexer does not match
// as a set of strings: anchors (Python's match anchors them at the text,
// not the token) and lazy quantifiers (Lark takes their shortest match).
func checkRE(pattern string) error {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil // pkg/regex reports it
	}
	var bad error
	var walk func(*syntax.Regexp)
	walk = func(r *syntax.Regexp) {
		switch r.Op {
		case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
			bad = fmt.Errorf("anchors (^ $) in a terminal are not supported")
		case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
			if r.Flags&syntax.NonGreedy != 0 {
				bad = fmt.Errorf("lazy quantifiers (*? +? ?? {m,n}?) are not supported: Lark's lexer takes their shortest match")
			}
		}
		for _, s := range r.Sub {
			walk(s)
		}
	}
	walk(re)
	return bad
}
