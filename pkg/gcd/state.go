package gcd

import (
	"fmt"

	"github.com/gasplab/gasp/pkg/earley"
)

// State is a grammar-constrained decoding state: the token sequence so far
// and the parse of its bytes. It answers which tokens may come next, takes a
// token, and rolls back to any earlier token boundary in O(1).
type State struct {
	k      *Masker
	p      *earley.Parser
	tokens []int
	marks  []earley.Checkpoint // marks[i]: parser position before tokens[i]
	ended  bool                // an EOS token was taken
}

// NewState returns a State at the empty prefix.
func (k *Masker) NewState() *State {
	return &State{k: k, p: k.m.NewParser()}
}

// Allowed returns the tokens allowed next. The set is shared: do not modify
// it. After EOS nothing is allowed.
func (s *State) Allowed() Bitset {
	if s.ended {
		return NewBitset(s.k.lt.trie.size)
	}
	return s.k.Mask(s.p.State())
}

// Complete reports whether the bytes so far form a sentence.
func (s *State) Complete() bool { return s.p.Complete() }

// Ended reports whether an EOS token has been taken.
func (s *State) Ended() bool { return s.ended }

// Tokens returns the tokens taken so far. The slice is valid until the next
// Advance or Rollback.
func (s *State) Tokens() []int { return s.tokens }

// Bytes returns the bytes of the tokens so far.
func (s *State) Bytes() []byte { return s.p.Bytes() }

// Advance takes token id. It returns an error, leaving the State unchanged,
// if the grammar does not allow it.
func (s *State) Advance(id int) error {
	v := s.k.vocab
	if id < 0 || id >= v.Size() {
		return fmt.Errorf("gcd: token %d out of range [0, %d)", id, v.Size())
	}
	if s.ended {
		return fmt.Errorf("gcd: token %d after end of sequence", id)
	}
	if isEOS(v, id) {
		if !s.p.Complete() {
			return fmt.Errorf("gcd: end of sequence (token %d) before the sentence is complete", id)
		}
		s.marks = append(s.marks, s.p.Checkpoint())
		s.tokens = append(s.tokens, id)
		s.ended = true
		return nil
	}
	if v.Special[id] {
		return fmt.Errorf("gcd: special token %d (%s) is never allowed", id, v.Name(id))
	}
	mark := s.p.Checkpoint()
	if !s.p.FeedBytes(v.Token(id)) {
		return fmt.Errorf("gcd: token %d %q is not allowed after %q", id, v.Token(id), s.p.Bytes())
	}
	s.marks = append(s.marks, mark)
	s.tokens = append(s.tokens, id)
	return nil
}

// Rollback returns to the State after the first n tokens (0 ≤ n ≤ len(Tokens())).
func (s *State) Rollback(n int) {
	if n < 0 || n > len(s.tokens) {
		panic(fmt.Sprintf("gcd: Rollback(%d) with %d tokens", n, len(s.tokens)))
	}
	if n == len(s.tokens) {
		return
	}
	s.p.Rollback(s.marks[n])
	s.tokens = s.tokens[:n]
	s.marks = s.marks[:n]
	s.ended = false
}

func isEOS(v *Vocab, id int) bool {
	for _, e := range v.EOS {
		if e == id {
			return true
		}
	}
	return false
}
