package grammar

import (
	"slices"
	"unicode/utf8"
)

// Character classes denote sets of Unicode scalar values: code points
// 0..0x10FFFF without the surrogates 0xD800..0xDFFF, which have no UTF-8
// encoding. This file turns such sets into byte-level alternatives.

const (
	surrogateMin = 0xD800
	surrogateMax = 0xDFFF
)

// Complement returns the scalar values that are in none of rs, as sorted,
// disjoint, non-adjacent ranges.
func Complement(rs []RuneRange) []RuneRange { return normalizeRanges(rs, true) }

// normalizeRanges returns the scalar values of a class as sorted, disjoint,
// non-adjacent ranges: the union of rs (complemented if negate) minus the
// surrogates.
func normalizeRanges(rs []RuneRange, negate bool) []RuneRange {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b RuneRange) int { return int(a.Lo - b.Lo) })
	var merged []RuneRange
	for _, r := range rs {
		if n := len(merged); n > 0 && r.Lo <= merged[n-1].Hi+1 {
			merged[n-1].Hi = max(merged[n-1].Hi, r.Hi)
			continue
		}
		merged = append(merged, r)
	}
	if negate {
		var comp []RuneRange
		next := rune(0)
		for _, r := range merged {
			if r.Lo > next {
				comp = append(comp, RuneRange{next, r.Lo - 1})
			}
			next = r.Hi + 1
		}
		if next <= utf8.MaxRune {
			comp = append(comp, RuneRange{next, utf8.MaxRune})
		}
		merged = comp
	}
	// Cut out the surrogates.
	var out []RuneRange
	for _, r := range merged {
		if r.Hi < surrogateMin || r.Lo > surrogateMax {
			out = append(out, r)
			continue
		}
		if r.Lo < surrogateMin {
			out = append(out, RuneRange{r.Lo, surrogateMin - 1})
		}
		if r.Hi > surrogateMax {
			out = append(out, RuneRange{surrogateMax + 1, r.Hi})
		}
	}
	return out
}

// anyRanges is the class of ".": every scalar value.
var anyRanges = []RuneRange{{0, surrogateMin - 1}, {surrogateMax + 1, utf8.MaxRune}}

// UTF8Forms returns the valid multi-byte UTF-8 characters (RFC 3629: no
// overlong forms, surrogates or runes past U+10FFFF) as rows of inclusive
// byte ranges, one row per form, as a class of them all compiles to.
func UTF8Forms() [][][2]byte {
	_, seqs := utf8Sequences([]RuneRange{{0x80, surrogateMin - 1}, {surrogateMax + 1, utf8.MaxRune}})
	forms := make([][][2]byte, len(seqs))
	for i, sq := range seqs {
		for _, r := range sq {
			forms[i] = append(forms[i], [2]byte{r.lo, r.hi})
		}
	}
	return forms
}

// byteRange is an inclusive range of byte values.
type byteRange struct{ lo, hi byte }

// utf8Sequences returns the UTF-8 encodings of the scalar values in rs (as
// returned by normalizeRanges) as an ASCII byte set and a list of sequences of
// byte ranges, each 2-4 long, each matching exactly the encodings of one
// subrange of the non-ASCII members. The sequences are disjoint.
//
// This is the classic splitting of RE2 and Go's regexp/syntax: cut the range
// where the encoding length changes, then where a continuation byte would
// wrap, until every byte position of the encodings of lo..hi ranges
// independently between the bytes of lo and of hi.
func utf8Sequences(rs []RuneRange) (ascii ByteSet, seqs [][]byteRange) {
	var split func(lo, hi rune)
	split = func(lo, hi rune) {
		// Different encoding lengths: cut at the boundary.
		for _, b := range [...]rune{0x7F, 0x7FF, 0xFFFF} {
			if lo <= b && b < hi {
				split(lo, b)
				split(b+1, hi)
				return
			}
		}
		if hi <= 0x7F {
			ascii.AddRange(byte(lo), byte(hi))
			return
		}
		// Same length n. For i trailing continuation bytes (the low 6i
		// bits), lo..hi must either share the bits above or cover the
		// full span of the low bits at both ends.
		for i := 1; i < 4; i++ {
			m := rune(1)<<(6*i) - 1
			if lo&^m != hi&^m {
				if lo&m != 0 {
					split(lo, lo|m)
					split((lo|m)+1, hi)
					return
				}
				if hi&m != m {
					split(lo, (hi&^m)-1)
					split(hi&^m, hi)
					return
				}
			}
		}
		var a, b [utf8.UTFMax]byte
		n := utf8.EncodeRune(a[:], lo)
		utf8.EncodeRune(b[:], hi)
		seq := make([]byteRange, n)
		for i := range seq {
			seq[i] = byteRange{a[i], b[i]}
		}
		seqs = append(seqs, seq)
	}
	for _, r := range rs {
		split(r.Lo, r.Hi)
	}
	return ascii, seqs
}
