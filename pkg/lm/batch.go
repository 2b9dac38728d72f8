package lm

import (
	"errors"
	"fmt"
)

// Batch is a set of rows that share a prompt, each with its own tokens after
// the prompt. It evaluates lazily: Append and Truncate only edit a row's
// tokens, and Next evaluates, in batched Session steps, just the tokens the
// cache lacks. After a truncation to n > 0 tokens the kept prefix stays
// cached and Next re-evaluates only token n-1 (whose output logits are not
// kept); a row with no tokens reuses the prompt's logits from the prefill.
//
// Evals counts token evaluations: len(prompt) for the prefill (shared by all
// rows) plus one per row and token stepped through the model.
//
// A Batch is not safe for concurrent use.
type Batch struct {
	s      Session
	vocab  int
	prompt []int
	first  []float32 // logits after the prompt
	rows   []batchRow
	evals  int
	rowEv  []int // rowEv[row]: token evaluations stepped for row
	err    error // sticky: set when the Session failed

	seen  []uint64 // seen[row] == epoch: row listed in the current Next
	epoch uint64
}

type batchRow struct {
	toks   []int
	cached int       // toks[:cached] are in the session's cache
	sess   int       // the session's length for this row, minus len(prompt)
	last   []float32 // logits after toks, when still valid
}

// NewBatch starts a session of rows rows on m and prefills prompt into every
// row.
func NewBatch(m Model, prompt []int, rows int) (*Batch, error) {
	if rows <= 0 {
		return nil, fmt.Errorf("lm: NewBatch: %d rows", rows)
	}
	s, err := m.NewSession(rows)
	if err != nil {
		return nil, err
	}
	first, err := s.Prefill(prompt)
	if err != nil {
		s.Close()
		return nil, err
	}
	v := m.VocabSize()
	if len(first) != v {
		s.Close()
		return nil, fmt.Errorf("lm: prefill returned %d logits for a vocabulary of %d", len(first), v)
	}
	return &Batch{
		s:      s,
		vocab:  v,
		prompt: append([]int(nil), prompt...),
		first:  first,
		rows:   make([]batchRow, rows),
		evals:  len(prompt),
		rowEv:  make([]int, rows),
		seen:   make([]uint64, rows),
	}, nil
}

// Rows returns the number of rows.
func (b *Batch) Rows() int { return len(b.rows) }

// VocabSize returns the length of the logits.
func (b *Batch) VocabSize() int { return b.vocab }

// Prompt returns the shared prompt. Do not modify it.
func (b *Batch) Prompt() []int { return b.prompt }

// Len returns the number of tokens in row after the prompt.
func (b *Batch) Len(row int) int { return len(b.rows[row].toks) }

// Tokens returns row's tokens after the prompt. The slice is valid until the
// row changes; do not modify it.
func (b *Batch) Tokens(row int) []int { return b.rows[row].toks }

// Evals returns the number of token evaluations so far, the prefill included.
func (b *Batch) Evals() int { return b.evals }

// RowEvals returns the number of token evaluations stepped for row so far:
// Evals is the prefill plus the sum of every row's RowEvals.
func (b *Batch) RowEvals(row int) int { return b.rowEv[row] }

// Append appends tokens to row.
func (b *Batch) Append(row int, tokens ...int) {
	if len(tokens) == 0 {
		return
	}
	r := &b.rows[row]
	r.toks = append(r.toks, tokens...)
	r.last = nil
}

// Truncate keeps the first n tokens of row (0 ≤ n ≤ Len(row)).
func (b *Batch) Truncate(row, n int) {
	r := &b.rows[row]
	if n < 0 || n > len(r.toks) {
		panic(fmt.Sprintf("lm: Truncate(%d, %d) with %d tokens", row, n, len(r.toks)))
	}
	if n == len(r.toks) {
		return
	}
	r.toks = r.toks[:n]
	r.cached = min(r.cached, n)
	r.last = nil
}

// Set makes row's tokens equal to tokens, keeping their common prefix with
// the row's current tokens.
func (b *Batch) Set(row int, tokens []int) {
	cur := b.rows[row].toks
	n := 0
	for n < len(cur) && n < len(tokens) && cur[n] == tokens[n] {
		n++
	}
	b.Truncate(row, n)
	b.Append(row, tokens[n:]...)
}

// Next returns, for each listed row, the logits of the token that follows
// its tokens. The rows must be distinct. The slices are shared: do not
// modify them.
func (b *Batch) Next(rows []int) ([][]float32, error) {
	if b.err != nil {
		return nil, b.err
	}
	out := make([][]float32, len(rows))
	var work []int // indices into rows that need evaluation
	b.epoch++
	for j, row := range rows {
		if row < 0 || row >= len(b.rows) {
			return nil, fmt.Errorf("lm: Next: row %d outside [0, %d)", row, len(b.rows))
		}
		if b.seen[row] == b.epoch {
			return nil, fmt.Errorf("lm: Next: row %d listed twice", row)
		}
		b.seen[row] = b.epoch
		r := &b.rows[row]
		switch {
		case len(r.toks) == 0:
			out[j] = b.first
			continue
		case r.last != nil:
			out[j] = r.last
			continue
		case r.cached == len(r.toks):
			// The cache holds the last token but not its output: evaluate it again.
			r.cached--
		}
		if r.sess != r.cached {
			if err := b.s.Truncate(row, len(b.prompt)+r.cached); err != nil {
				b.err = err
				return nil, err
			}
			r.sess = r.cached
		}
		work = append(work, j)
	}
	var toks, ids []int
	for len(work) > 0 {
		toks, ids = toks[:0], ids[:0]
		for _, j := range work {
			r := &b.rows[rows[j]]
			toks = append(toks, r.toks[r.cached])
			ids = append(ids, rows[j])
		}
		logits, err := b.s.Step(toks, ids)
		if err == nil && len(logits) != len(ids) {
			err = fmt.Errorf("lm: Step returned %d rows of logits for %d rows", len(logits), len(ids))
		}
		if err != nil {
			b.err = err
			return nil, err
		}
		b.evals += len(ids)
		for _, row := range ids {
			b.rowEv[row]++
		}
		rest := work[:0]
		for k, j := range work {
			r := &b.rows[rows[j]]
			r.cached++
			r.sess++
			if r.cached < len(r.toks) {
				rest = append(rest, j)
				continue
			}
			if len(logits[k]) != b.vocab {
				b.err = fmt.Errorf("lm: Step returned %d logits for a vocabulary of %d", len(logits[k]), b.vocab)
				return nil, b.err
			}
			r.last = logits[k]
			out[j] = logits[k]
		}
		work = rest
	}
	return out, nil
}

// Close releases the session. The Batch must not be used afterwards.
func (b *Batch) Close() {
	if b.s != nil {
		b.s.Close()
		b.s = nil
	}
	if b.err == nil {
		b.err = errors.New("lm: batch is closed")
	}
}
