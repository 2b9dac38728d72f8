package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// Llama3Pattern is the pre-tokenizer regex of Llama 3 (and of tiktoken's
// cl100k_base), as its tokenizer.json writes it in a Split step. The
// tokenizer implements exactly this pattern with a hand-written scanner
// (splitLlama3), because Go's regexp has no lookahead.
const Llama3Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// Character classes of the pattern. A character is exactly one of letter
// (\p{L}), number (\p{N}), space (\s: the Unicode White_Space property, as
// in Oniguruma, which Hugging Face tokenizers uses) or other; a space may
// also be a line break ([\r\n]).
const (
	clOther  = 0
	clLetter = 1
	clNumber = 2
	clSpace  = 4
	clLF     = 8 // '\r' or '\n', always with clSpace
)

// asciiClass classifies the ASCII characters.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range utf8.RuneSelf {
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			t[c] = clLetter
		case '0' <= c && c <= '9':
			t[c] = clNumber
		case c == '\r' || c == '\n':
			t[c] = clSpace | clLF
		case c == ' ' || '\t' <= c && c <= '\r':
			t[c] = clSpace
		}
	}
	return t
}()

// charAt returns the class of the character that starts at s[i] and its
// length in bytes. A byte that does not start valid UTF-8 is a one-byte
// character of class other (it can only come from a Go string that is not
// UTF-8; it is kept so that decoding gives the input back).
func charAt(s string, i int) (class uint8, size int) {
	c := s[i]
	if c < utf8.RuneSelf {
		return asciiClass[c], 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	switch {
	case size == 1: // invalid UTF-8
		return clOther, 1
	case unicode.IsLetter(r):
		return clLetter, size
	case unicode.IsNumber(r):
		return clNumber, size
	case unicode.Is(unicode.White_Space, r):
		return clSpace, size
	}
	return clOther, size
}

// classAt is charAt that reports clOther past the end of s, where no
// alternative of the pattern can continue.
func classAt(s string, i int) (class uint8, size int) {
	if i >= len(s) {
		return clOther, 0
	}
	return charAt(s, i)
}

// splitLlama3 calls yield with each piece of s that the Llama-3 pattern
// splits off, in order; the pieces cover s. It stops early when yield
// returns false.
//
// A Split with behavior Isolated emits every match and every stretch
// between matches; for this pattern there are no such stretches, since every
// character starts a match (a letter matches \p{L}+, a number \p{N}{1,3}, a
// space \s+, anything else [^\s\p{L}\p{N}]+).
func splitLlama3(s string, yield func(piece string) bool) {
	for i := 0; i < len(s); {
		j := llama3Match(s, i)
		if !yield(s[i:j]) {
			return
		}
		i = j
	}
}

// llama3Match returns the end of the match of Llama3Pattern at s[i:], i <
// len(s): the alternatives are tried in order and the first that matches
// wins (leftmost-first, as in a backtracking engine), each quantifier greedy.
func llama3Match(s string, i int) int { return scanMatch(s, i, 3) }

// scanMatch returns the end of the match at s[i:] of Llama3Pattern (digits
// 3) or QwenPattern (digits 1), which differ only in \p{N}{1,3} and \p{N}.
func scanMatch(s string, i, digits int) int {
	c, n := charAt(s, i)

	// (?i:'s|'t|'re|'ve|'m|'ll|'d). Under Unicode case folding 's' also
	// matches 'ſ' (U+017F LATIN SMALL LETTER LONG S), as in Oniguruma and
	// Rust's regex crate; no other character folds to one of these letters.
	if s[i] == '\'' && i+1 < len(s) {
		switch s[i+1] | 0x20 { // ASCII lower case (harmless for other bytes: they match nothing below)
		case 's', 't', 'm', 'd':
			return i + 2
		case 'r', 'v':
			if i+2 < len(s) && s[i+2]|0x20 == 'e' {
				return i + 3
			}
		case 'l':
			if i+2 < len(s) && s[i+2]|0x20 == 'l' {
				return i + 3
			}
		}
		if len(s) >= i+3 && s[i+1] == 0xC5 && s[i+2] == 0xBF { // ſ
			return i + 3
		}
	}

	switch {
	case c == clLetter:
		// [^\r\n\p{L}\p{N}]?\p{L}+ without the optional character.
		return letters(s, i+n)
	case c == clNumber:
		// \p{N}{1,digits}.
		j := i + n
		for k := 1; k < digits && j < len(s); k++ {
			c2, n2 := charAt(s, j)
			if c2 != clNumber {
				break
			}
			j += n2
		}
		return j
	}

	// c is a space or other. [^\r\n\p{L}\p{N}]?\p{L}+: c and letters.
	c2, n2 := classAt(s, i+n)
	if c&clLF == 0 && c2 == clLetter {
		return letters(s, i+n+n2)
	}

	// ' ?[^\s\p{L}\p{N}]+[\r\n]*'.
	if c == clOther {
		return others(s, i+n)
	}
	if s[i] == ' ' && c2 == clOther {
		return others(s, i+n+n2)
	}

	// c is a space: \s*[\r\n]+ | \s+(?!\S) | \s+ over the run of spaces
	// s[i:j]. The first matches up to the last line break of the run; the
	// second the run, or the run less its last character when a non-space
	// follows (and the run has two or more characters); else the third.
	j, last, lastLF := i, i, -1
	for j < len(s) {
		c, n := charAt(s, j)
		if c&clSpace == 0 {
			break
		}
		if c&clLF != 0 {
			lastLF = j
		}
		last = j
		j += n
	}
	switch {
	case lastLF >= 0:
		return lastLF + 1 // '\r' and '\n' are one byte
	case j == len(s) || last == i:
		return j
	}
	return last
}

// runOf returns the end of the run of characters of class cl that starts
// at s[j:].
func runOf(s string, j int, cl uint8) int {
	for j < len(s) {
		c, n := charAt(s, j)
		if c != cl {
			break
		}
		j += n
	}
	return j
}

// letters returns the end of the run of letters that starts at s[j:].
func letters(s string, j int) int {
	return runOf(s, j, clLetter)
}

// others returns the end of [^\s\p{L}\p{N}]*[\r\n]* at s[j:].
func others(s string, j int) int {
	j = runOf(s, j, clOther)
	for j < len(s) && (s[j] == '\r' || s[j] == '\n') {
		j++
	}
	return j
}
