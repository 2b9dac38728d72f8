package gcd

import (
	"math/bits"

	"github.com/gasplab/gasp/pkg/grammar"
)

// UTF-8 runs: a region that takes every UTF-8 character from a State (a
// string body, XML text or a comment) keeps every token whose bytes are
// valid UTF-8, which most of the vocabulary's non-ASCII tokens are. The
// trie records, by node, whether every path below it is (Trie.utf8), and a
// shape whether each of its States takes every multi-byte character back
// to itself (utf8Closed): where both hold, a walk takes a subtree whole
// instead of following its non-ASCII bytes one by one.

// utf8State is where a UTF-8 decoder is: at a character boundary, or
// inside a character with the ranges of its remaining bytes (utf8Seqs).
type utf8State uint8

const (
	u8Boundary utf8State = iota
	u8Cont1              // one more byte in 80-BF
	u8Cont2              // two more in 80-BF
	u8Cont3              // three more in 80-BF
	u8E0                 // after E0: A0-BF, then one more
	u8ED                 // after ED: 80-9F, then one more
	u8F0                 // after F0: 90-BF, then two more
	u8F4                 // after F4: 80-8F, then two more
	u8Bad                // not valid UTF-8
	u8States
)

// narrowCont is, after the lead bytes E0, ED, F0 and F4, the range of the
// next byte (narrower than 80-BF: no overlong forms, surrogates or runes
// past U+10FFFF) and the state after it.
var narrowCont = [u8States]struct {
	lo, hi byte
	next   utf8State
}{
	u8E0: {0xA0, 0xBF, u8Cont1},
	u8ED: {0x80, 0x9F, u8Cont1},
	u8F0: {0x90, 0xBF, u8Cont2},
	u8F4: {0x80, 0x8F, u8Cont2},
}

// utf8Step returns the decoder's state after byte b.
func utf8Step(s utf8State, b byte) utf8State {
	cont := b >= 0x80 && b <= 0xBF
	switch s {
	case u8Boundary:
		switch {
		case b < 0x80:
			return u8Boundary
		case b >= 0xC2 && b <= 0xDF:
			return u8Cont1
		case b == 0xE0:
			return u8E0
		case b == 0xED:
			return u8ED
		case b >= 0xE1 && b <= 0xEF:
			return u8Cont2
		case b == 0xF0:
			return u8F0
		case b >= 0xF1 && b <= 0xF3:
			return u8Cont3
		case b == 0xF4:
			return u8F4
		}
	case u8Cont1, u8Cont2, u8Cont3:
		if cont {
			return s - 1
		}
	case u8E0, u8ED, u8F0, u8F4:
		if r := narrowCont[s]; b >= r.lo && b <= r.hi {
			return r.next
		}
	}
	return u8Bad
}

// utf8ByLabel returns, by label of a partition of the bytes, the decoder's
// state after any byte of the label, by the state before: u8Bad where the
// label's bytes lead to different states.
func utf8ByLabel(label *[256]uint8, n int) [][u8States]utf8State {
	next := make([][u8States]utf8State, n)
	seen := make([]bool, n)
	for b := range 256 {
		l := label[b]
		for s := utf8State(0); s < u8States; s++ {
			to := u8Bad
			if s != u8Bad {
				to = utf8Step(s, byte(b))
			}
			if !seen[l] {
				next[l][s] = to
			} else if next[l][s] != to {
				next[l][s] = u8Bad
			}
		}
		seen[l] = true
	}
	return next
}

// utf8Flags returns, by node, whether every path from the node down into
// its subtree (the node's own byte first) is a prefix of valid UTF-8 when
// it starts at a character boundary.
func (t *Trie) utf8Flags() []bool {
	n := len(t.label)
	// below[i]: bit s set if every path from a child of i down is valid
	// from decoder state s. Children follow their parent in preorder, so
	// going backwards each node is complete before its parent reads it.
	all := uint16(1)<<u8Bad - 1
	below := make([]uint16, n)
	for i := range below {
		below[i] = all
	}
	flags := make([]bool, n)
	for i := n - 1; i > 0; i-- {
		var ok uint16
		for s := utf8State(0); s < u8Bad; s++ {
			if next := utf8Step(s, t.label[i]); next != u8Bad && below[i]&(1<<next) != 0 {
				ok |= 1 << s
			}
		}
		flags[i] = ok&(1<<u8Boundary) != 0
		below[t.parent[i]] &= ok
	}
	return flags
}

// utf8Seqs are the byte ranges of the valid multi-byte UTF-8 characters
// (RFC 3629), one row per form.
var utf8Seqs = grammar.UTF8Forms()

// utf8Classes returns, for each row of utf8Seqs, the byte classes of each
// of its ranges.
func utf8Classes(classOf func(byte) int) ([][][]uint8, [][]grammar.ByteSet) {
	rows := make([][][]uint8, len(utf8Seqs))
	sets := make([][]grammar.ByteSet, len(utf8Seqs))
	for i, seq := range utf8Seqs {
		for _, r := range seq {
			var set grammar.ByteSet
			var list []uint8
			for b := int(r[0]); b <= int(r[1]); b++ {
				if c := uint8(classOf(byte(b))); !set.Has(c) {
					set.Add(c)
					list = append(list, c)
				}
			}
			rows[i] = append(rows[i], list)
			sets[i] = append(sets[i], set)
		}
	}
	return rows, sets
}

// utf8Closed reports whether region State q of a shape's table by trie
// label (nl codes a State) takes every multi-byte UTF-8 character back to
// q through States of the region. It follows every label path of each
// form (utf8Labels: a superset of the paths real characters take, so a
// yes is sound).
func (lt *labelled) utf8Closed(table []byte, nl int, q int) bool {
	for _, row := range lt.utf8Labels {
		cur := uint64(1) << q // region States reached, as a set
		for _, labels := range row {
			var next uint64
			for x := cur; x != 0; x &= x - 1 {
				from := bits.TrailingZeros64(x)
				for _, l := range labels {
					code := table[from*nl+int(l)]
					if code == codeDead || code == codeExit {
						return false
					}
					next |= 1 << code
				}
			}
			cur = next
		}
		if cur != 1<<q {
			return false
		}
	}
	return true
}
