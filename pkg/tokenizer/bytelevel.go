package tokenizer

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// byteToRune is GPT-2's bytes_to_unicode table, the byte-level alphabet in
// which tokenizer.json writes the tokens of a byte-level BPE model: the
// printable bytes '!'..'~', '¡'..'¬' and '®'..'ÿ' stand for themselves; the
// other 68 bytes, in increasing order, for U+0100, U+0101, ... (so ' ' is
// 'Ġ', U+0120, and '\n' is 'Ċ', U+010A).
var byteToRune = func() (t [256]rune) {
	n := rune(0)
	for b := range 256 {
		if '!' <= b && b <= '~' || '¡' <= b && b <= '¬' || '®' <= b && b <= 'ÿ' {
			t[b] = rune(b)
		} else {
			t[b] = 0x100 + n
			n++
		}
	}
	return t
}()

// runeToByte inverts byteToRune: runeToByte[r] is 1 + the byte for r, 0 when
// r is not in the alphabet. Every rune of the alphabet is below 0x144.
var runeToByte = func() (t [0x144]uint16) {
	for b, r := range byteToRune {
		t[r] = uint16(b) + 1
	}
	return t
}()

// ByteLevelRune returns the character of the byte-level alphabet that
// stands for b.
func ByteLevelRune(b byte) rune { return byteToRune[b] }

// ByteLevelEncode writes b in the byte-level alphabet, one character per
// byte, as tokenizer.json writes tokens: ByteLevelEncode([]byte(" the")) is
// "Ġthe".
func ByteLevelEncode(b []byte) string {
	var sb strings.Builder
	sb.Grow(2 * len(b))
	for _, c := range b {
		sb.WriteRune(byteToRune[c])
	}
	return sb.String()
}

// ByteLevelDecode returns the bytes that s, written in the byte-level
// alphabet, stands for: ByteLevelDecode("Ġthe") is " the". It fails on a
// character outside the alphabet.
func ByteLevelDecode(s string) ([]byte, error) {
	b := make([]byte, 0, len(s))
	for i, r := range s {
		if r < 0 || int(r) >= len(runeToByte) || runeToByte[r] == 0 {
			if r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
				return nil, fmt.Errorf("invalid UTF-8 at byte %d", i)
			}
			return nil, fmt.Errorf("character %q (%U) is not in the byte-level alphabet", r, r)
		}
		b = append(b, byte(runeToByte[r]-1))
	}
	return b, nil
}

// appendByteLevelDecode is ByteLevelDecode appending to dst; ok is false if
// s has a character outside the alphabet.
func appendByteLevelDecode(dst []byte, s string) (_ []byte, ok bool) {
	for _, r := range s {
		if r < 0 || int(r) >= len(runeToByte) || runeToByte[r] == 0 {
			return dst, false
		}
		dst = append(dst, byte(runeToByte[r]-1))
	}
	return dst, true
}
