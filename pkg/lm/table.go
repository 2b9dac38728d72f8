package lm

import (
	"encoding/binary"
	"fmt"
)

// Table is an exact language model: the logits of the next token are a
// deterministic function of the whole prefix (prompt and row tokens). It is
// meant for tests and small experiments where sequence probabilities must be
// known in closed form.
type Table struct {
	// Vocab is the number of token ids.
	Vocab int
	// Logits returns the next-token logits after prefix; it must be
	// deterministic and return Vocab values, which callers do not modify.
	// Log-probabilities are fine: Transform normalises anyway.
	Logits func(prefix []int) []float32
}

// VocabSize returns t.Vocab.
func (t *Table) VocabSize() int { return t.Vocab }

// NewSession returns a session of rows empty rows.
func (t *Table) NewSession(rows int) (Session, error) {
	if t.Logits == nil || t.Vocab <= 0 {
		return nil, fmt.Errorf("lm: Table needs Vocab > 0 and Logits")
	}
	return &tableSession{t: t, seqs: make([][]int, rows)}, nil
}

// Key returns a map key for a token sequence, for Logits functions backed
// by a map (see TableFromMap).
func Key(tokens []int) string {
	b := make([]byte, 0, 4*len(tokens))
	for _, t := range tokens {
		b = binary.LittleEndian.AppendUint32(b, uint32(t))
	}
	return string(b)
}

// TableFromMap returns a Table whose logits after prefix are m[Key(prefix)],
// or fallback when the prefix is not in m.
func TableFromMap(vocab int, m map[string][]float32, fallback []float32) *Table {
	return &Table{Vocab: vocab, Logits: func(prefix []int) []float32 {
		if l, ok := m[Key(prefix)]; ok {
			return l
		}
		return fallback
	}}
}

// NewBigram returns a bigram model: the logits after a prefix that ends with
// token t are next[t], and after the empty prefix start.
func NewBigram(start []float32, next [][]float32) *Table {
	return &Table{Vocab: len(start), Logits: func(prefix []int) []float32 {
		if len(prefix) == 0 {
			return start
		}
		return next[prefix[len(prefix)-1]]
	}}
}

type tableSession struct {
	t    *Table
	seqs [][]int
}

func (s *tableSession) logits(prefix []int) ([]float32, error) {
	l := s.t.Logits(prefix)
	if len(l) != s.t.Vocab {
		return nil, fmt.Errorf("lm: Table returned %d logits for a vocabulary of %d", len(l), s.t.Vocab)
	}
	return l, nil
}

func (s *tableSession) Prefill(prompt []int) ([]float32, error) {
	for r := range s.seqs {
		s.seqs[r] = append(s.seqs[r][:0], prompt...)
	}
	return s.logits(prompt)
}

func (s *tableSession) Step(tokens, rows []int) ([][]float32, error) {
	if len(tokens) != len(rows) {
		return nil, fmt.Errorf("lm: Step: %d tokens for %d rows", len(tokens), len(rows))
	}
	out := make([][]float32, len(rows))
	for j, r := range rows {
		if tokens[j] < 0 || tokens[j] >= s.t.Vocab {
			return nil, fmt.Errorf("lm: Step: token %d outside [0, %d)", tokens[j], s.t.Vocab)
		}
		s.seqs[r] = append(s.seqs[r], tokens[j])
		l, err := s.logits(s.seqs[r])
		if err != nil {
			return nil, err
		}
		out[j] = l
	}
	return out, nil
}

func (s *tableSession) Truncate(row, length int) error {
	if length < 0 || length > len(s.seqs[row]) {
		return fmt.Errorf("lm: Truncate: length %d outside [0, %d]", length, len(s.seqs[row]))
	}
	s.seqs[row] = s.seqs[row][:length]
	return nil
}

func (s *tableSession) Close() {}
