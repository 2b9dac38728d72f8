package gcd

import "math/bits"

// Bitset is a set of token ids.
type Bitset []uint64

// NewBitset returns an empty set for ids in [0, n).
func NewBitset(n int) Bitset { return make(Bitset, (n+63)/64) }

// Has reports whether id is in the set; an id out of the set's range (a
// negative one, or one past the vocabulary) is not.
func (b Bitset) Has(id int) bool {
	return id >= 0 && id>>6 < len(b) && b[id>>6]&(1<<(id&63)) != 0
}

// Set adds id to the set.
func (b Bitset) Set(id int) { b[id>>6] |= 1 << (id & 63) }

// Clear empties the set.
func (b Bitset) Clear() { clear(b) }

// Count returns the number of ids in the set.
func (b Bitset) Count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// Each calls f for each id in the set, in increasing order.
func (b Bitset) Each(f func(id int)) {
	for i, w := range b {
		for w != 0 {
			f(i<<6 | bits.TrailingZeros64(w))
			w &= w - 1
		}
	}
}

// AppendIDs appends the ids in the set to dst in increasing order.
func (b Bitset) AppendIDs(dst []int) []int {
	b.Each(func(id int) { dst = append(dst, id) })
	return dst
}
