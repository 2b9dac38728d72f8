package tokenizer

import "unicode/utf8"

// appendPieceSP appends the ids of one piece of a SentencePiece model, as
// Hugging Face's BPE does with byte_fallback: each character starts as its
// token, or as the fallback tokens of its bytes, or as the unknown token
// (one for a run of them with fuse_unk); then merges apply as in bpe.
func (t *Tokenizer) appendPieceSP(dst []int, w string) []int {
	if t.ignoreMerges {
		if id, ok := t.byName[w]; ok {
			return append(dst, int(id))
		}
	}
	ids, ok := t.cache.get(w)
	if !ok {
		ids = t.mergeIDs(t.spSymbols(w))
		t.cache.put(w, ids)
	}
	for _, id := range ids {
		dst = append(dst, int(id))
	}
	return dst
}

// spSymbols returns the initial tokens of the piece w. A byte that is not
// valid UTF-8 (only a Go string can hold one) counts as a character of its
// own, which only byte fallback can encode.
func (t *Tokenizer) spSymbols(w string) []int32 {
	ids := make([]int32, 0, len(w))
	pendingUnk := false
	for i := 0; i < len(w); {
		_, n := utf8.DecodeRuneInString(w[i:])
		c := w[i : i+n]
		i += n
		if id, ok := t.byName[c]; ok {
			if pendingUnk {
				ids = append(ids, t.unk)
				pendingUnk = false
			}
			ids = append(ids, id)
			continue
		}
		if t.byteFallback && t.hasFallback(c) {
			// As Hugging Face, a pending unknown token stays pending.
			for j := 0; j < len(c); j++ {
				ids = append(ids, t.byteIDs[c[j]])
			}
			continue
		}
		if t.unk < 0 {
			continue // no token: Hugging Face drops the character
		}
		if pendingUnk && !t.fuseUnk {
			ids = append(ids, t.unk)
		}
		pendingUnk = true
	}
	if pendingUnk {
		ids = append(ids, t.unk)
	}
	return ids
}

// hasFallback reports whether every byte of c has a byte-fallback token.
func (t *Tokenizer) hasFallback(c string) bool {
	for j := 0; j < len(c); j++ {
		if t.byteIDs[c[j]] < 0 {
			return false
		}
	}
	return true
}
