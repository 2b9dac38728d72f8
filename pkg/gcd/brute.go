package gcd

import (
	"fmt"

	"github.com/gasplab/gasp/pkg/earley"
)

// BruteMask computes the mask after prefix from its definition: every
// token's bytes fed to a parser of m after prefix, one token at a time.
// It is what Masker's masks are checked against ("gasp bench masks
// --verify", the tests); give it a Machine of its own (earley.New) so that
// it shares no cache with the Masker it checks. It costs a parse of every
// token: milliseconds to seconds a mask, for checking only.
func BruteMask(m *earley.Machine, v *Vocab, prefix []byte) (Bitset, error) {
	p := m.NewParser()
	if !p.FeedBytes(prefix) {
		return nil, fmt.Errorf("prefix %q not viable", prefix)
	}
	b := NewBitset(v.Size())
	cp := p.Checkpoint()
	for id := range v.Size() {
		tok := v.Token(id)
		switch {
		case isEOS(v, id):
			if p.Complete() {
				b.Set(id)
			}
		case v.Special[id] || len(tok) == 0:
		default:
			if p.FeedBytes(tok) {
				b.Set(id)
			}
			p.Rollback(cp)
		}
	}
	return b, nil
}
