package gcd

import "testing"

func TestBitset(t *testing.T) {
	b := NewBitset(130)
	for _, id := range []int{0, 63, 64, 129} {
		b.Set(id)
	}
	if got := b.AppendIDs(nil); len(got) != 4 || got[0] != 0 || got[3] != 129 {
		t.Errorf("ids %v", got)
	}
	if b.Count() != 4 || !b.Has(64) || b.Has(65) {
		t.Errorf("count %d, has 64 %v, has 65 %v", b.Count(), b.Has(64), b.Has(65))
	}
	// Ids out of range are not in the set (no panic): "gasp bench masks
	// --eos" with an id past the vocabulary asks.
	for _, id := range []int{-1, -64, 192, 1 << 40} {
		if b.Has(id) {
			t.Errorf("Has(%d) = true", id)
		}
	}
	b.Clear()
	if b.Count() != 0 {
		t.Errorf("count %d after Clear", b.Count())
	}
}
