package llama

import (
	"errors"
	"fmt"
	"math"
	"slices"

	backends "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
)

// Session is a batch of rows decoded together, each row a token sequence with its own length in a shared
// KV cache of Session.MaxSeq positions per row. A Session is not safe for concurrent use.
type Session struct {
	m     *Model
	batch int
	seq   int               // cache positions per row
	k, v  []backends.Buffer // per layer: K [B, kvH, hd, S+1], V [B, kvH, S+1, hd]
	lens  []int
	err   error // set when an execution failed after consuming the cache
}

// NewSession returns a session of batch rows, all empty, with a cache of Options.MaxSeq positions per row.
// batch 0 means Options.Batch. The cache takes 2·layers·batch·kvHeads·(MaxSeq+1)·HeadDim float32s.
func (m *Model) NewSession(batch int) (*Session, error) { return m.NewSessionSeq(batch, 0) }

// NewSessionSeq is NewSession with a cache of maxSeq ≤ Options.MaxSeq positions per row (0 means
// Options.MaxSeq). Every decoding step attends over the whole cache, so a session sized to what its rows
// will hold (prompt plus completion) is faster; each cache length compiles its own graphs.
func (m *Model) NewSessionSeq(batch, maxSeq int) (*Session, error) {
	if batch < 0 {
		return nil, fmt.Errorf("llama: NewSession: negative batch %d", batch)
	}
	if batch == 0 {
		batch = m.opts.Batch
	}
	if maxSeq < 0 || maxSeq > m.opts.MaxSeq {
		return nil, fmt.Errorf("llama: NewSession: cache length %d outside [1, MaxSeq %d]", maxSeq, m.opts.MaxSeq)
	}
	if maxSeq == 0 {
		maxSeq = m.opts.MaxSeq
	}
	s := &Session{m: m, batch: batch, seq: maxSeq, lens: make([]int, batch)}
	c := m.cfg
	S1 := maxSeq + 1
	kShape := shapes.Make(dtypes.Float32, batch, c.NumKeyValueHeads, c.HeadDim, S1)
	vShape := shapes.Make(dtypes.Float32, batch, c.NumKeyValueHeads, S1, c.HeadDim)
	zeros := make([]float32, kShape.Size())
	for range c.NumHiddenLayers {
		kb, err := m.backend.BufferFromFlatData(0, zeros, kShape)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("llama: NewSession: %w", err)
		}
		s.k = append(s.k, kb)
		vb, err := m.backend.BufferFromFlatData(0, zeros, vShape)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("llama: NewSession: %w", err)
		}
		s.v = append(s.v, vb)
	}
	return s, nil
}

// Batch returns the number of rows.
func (s *Session) Batch() int { return s.batch }

// Len returns the number of tokens in row (the position its next token takes).
func (s *Session) Len(row int) int { return s.lens[row] }

// Close releases the cache. The session must not be used afterwards.
func (s *Session) Close() {
	for _, b := range append(s.k, s.v...) {
		if b != nil {
			_ = b.Finalize()
		}
	}
	s.k, s.v = nil, nil
	if s.err == nil {
		s.err = errors.New("llama: session is closed")
	}
}

// MaxSeq returns the number of cache positions per row: the most tokens a row can hold.
func (s *Session) MaxSeq() int { return s.seq }

// Model returns the session's model.
func (s *Session) Model() *Model { return s.m }

// Forward is Model.Forward: the logits at every position of ids, computed without a cache.
func (s *Session) Forward(ids []int) ([][]float32, error) { return s.m.Forward(ids) }

// Prefill computes the prompt once and copies its keys and values into every row, replacing whatever the
// rows held: afterwards every row has length len(prompt). It returns the logits of the token that follows the
// prompt (the same for every row). The prompt is computed in chunks of Options.PrefillChunk tokens, the last
// one padded, so one compiled graph serves every prompt length, into a one-row cache whose contents are then
// copied into the session's rows on the host.
//
// The model remembers the last prompt it prefilled (for a cache length): a session of any batch size that
// prefills the same prompt gets the same keys, values and logits without computing them again, as when
// several samplers run on one prompt.
func (s *Session) Prefill(prompt []int) ([]float32, error) {
	if s.err != nil {
		return nil, s.err
	}
	m := s.m
	n := len(prompt)
	if n == 0 {
		return nil, errors.New("llama: Prefill: empty prompt")
	}
	if n > s.seq {
		return nil, fmt.Errorf("llama: Prefill: prompt of %d tokens exceeds the cache length %d", n, s.seq)
	}
	if err := m.checkIDs(prompt); err != nil {
		return nil, fmt.Errorf("llama: Prefill: %w", err)
	}
	p := m.rememberedPrefix(prompt, s.seq)
	if p == nil {
		var err error
		if p, err = m.computePrefix(prompt, s.seq); err != nil {
			return nil, err
		}
		m.rememberPrefix(p)
	}
	if err := s.fill(p); err != nil {
		return nil, err
	}
	for b := range s.lens {
		s.lens[b] = n
	}
	return slices.Clone(p.logits), nil
}

// prefix is a prompt's keys and values in a one-row cache of seq positions, and the logits that follow it.
type prefix struct {
	prompt []int
	seq    int
	k, v   [][]float32 // per layer: K [kvH, hd, seq+1], V [kvH, seq+1, hd]
	logits []float32
}

// rememberedPrefix returns the remembered prefix of prompt for caches of seq positions, or nil.
func (m *Model) rememberedPrefix(prompt []int, seq int) *prefix {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p := m.lastPrefix; p != nil && p.seq == seq && slices.Equal(p.prompt, prompt) {
		return p
	}
	return nil
}

func (m *Model) rememberPrefix(p *prefix) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lastPrefix = p
}

// computePrefix runs the prefill graph over prompt, chunk by chunk, into a one-row cache of seq positions.
func (m *Model) computePrefix(prompt []int, seq int) (*prefix, error) {
	one, err := m.NewSessionSeq(1, seq)
	if err != nil {
		return nil, err
	}
	defer one.Close()
	g, err := m.graph(m.prefill, graphKey{1, seq}, m.buildPrefill)
	if err != nil {
		return nil, err
	}
	n, C, S := len(prompt), m.opts.PrefillChunk, seq
	S1 := S + 1
	half := m.cfg.HeadDim / 2
	negInf := float32(math.Inf(-1))
	var logits []float32
	for start := 0; start < n; start += C {
		tokens := make([]int32, C)
		cos := make([]float32, C*half)
		sin := make([]float32, C*half)
		bias := make([]float32, C*S1)
		idx := make([]int32, C*2)
		last := []int32{int32(min(n-start, C) - 1)}
		for i := range C {
			pos := start + i
			row := bias[i*S1 : (i+1)*S1]
			slot := S // scratch slot for padding
			if pos < n {
				tokens[i] = int32(prompt[pos])
				m.rope(pos, cos[i*half:(i+1)*half], sin[i*half:(i+1)*half])
				for j := pos + 1; j < S1; j++ {
					row[j] = negInf
				}
				slot = pos
			} else {
				m.rope(0, cos[i*half:(i+1)*half], sin[i*half:(i+1)*half])
				for j := 1; j < S1; j++ {
					row[j] = negInf
				}
			}
			idx[i*2+1] = int32(slot) // row 0
		}
		in := inputs{m: m}
		in.weights()
		in.add(tokens, C)
		in.add(cos, C, half)
		in.add(sin, C, half)
		in.add(bias, C, S1)
		in.add(idx, 1, C, 2)
		in.add(last, 1)
		if in.err != nil {
			in.release()
			return nil, fmt.Errorf("llama: Prefill: %w", in.err)
		}
		if logits, err = one.exec(g, in); err != nil {
			return nil, err
		}
	}
	p := &prefix{prompt: slices.Clone(prompt), seq: seq, logits: logits}
	m.mu.Lock()
	m.prefixes++
	m.mu.Unlock()
	for l := range one.k {
		k, err := m.readFloat32(one.k[l])
		one.k[l] = nil
		if err != nil {
			return nil, fmt.Errorf("llama: Prefill: %w", err)
		}
		v, err := m.readFloat32(one.v[l])
		one.v[l] = nil
		if err != nil {
			return nil, fmt.Errorf("llama: Prefill: %w", err)
		}
		p.k, p.v = append(p.k, k), append(p.v, v)
	}
	return p, nil
}

// fill replaces the session's caches by caches whose every row holds the prefix p.
func (s *Session) fill(p *prefix) error {
	c := s.m.cfg
	S1 := s.seq + 1
	kShape := shapes.Make(dtypes.Float32, s.batch, c.NumKeyValueHeads, c.HeadDim, S1)
	vShape := shapes.Make(dtypes.Float32, s.batch, c.NumKeyValueHeads, S1, c.HeadDim)
	var k, v []backends.Buffer
	release := func() {
		for _, b := range append(k, v...) {
			_ = b.Finalize()
		}
	}
	rows := make([]float32, kShape.Size())
	for l := range p.k {
		for _, kv := range [...]struct {
			row   []float32
			shape shapes.Shape
			dst   *[]backends.Buffer
		}{{p.k[l], kShape, &k}, {p.v[l], vShape, &v}} {
			for b := range s.batch {
				copy(rows[b*len(kv.row):], kv.row)
			}
			buf, err := s.m.backend.BufferFromFlatData(0, rows, kv.shape)
			if err != nil {
				release()
				return fmt.Errorf("llama: Prefill: %w", err)
			}
			*kv.dst = append(*kv.dst, buf)
		}
	}
	for l := range s.k {
		_ = s.k[l].Finalize()
		_ = s.v[l].Finalize()
	}
	s.k, s.v = k, v
	return nil
}

// Step appends tokens[j] to row rows[j], for every j, in one batched execution, and returns for each j the
// logits (VocabSize float32s) of the token that follows in row rows[j]. Rows not listed are untouched. The
// rows must be distinct and not full (Len < MaxSeq()).
func (s *Session) Step(tokens []int, rows []int) ([][]float32, error) {
	if s.err != nil {
		return nil, s.err
	}
	m := s.m
	if len(tokens) != len(rows) {
		return nil, fmt.Errorf("llama: Step: %d tokens for %d rows", len(tokens), len(rows))
	}
	if len(rows) == 0 {
		return nil, nil
	}
	if err := m.checkIDs(tokens); err != nil {
		return nil, fmt.Errorf("llama: Step: %w", err)
	}
	B, S := s.batch, s.seq
	S1 := S + 1
	seen := make([]bool, B)
	for _, r := range rows {
		if r < 0 || r >= B {
			return nil, fmt.Errorf("llama: Step: row %d is outside [0, %d)", r, B)
		}
		if seen[r] {
			return nil, fmt.Errorf("llama: Step: row %d is listed twice", r)
		}
		seen[r] = true
		if s.lens[r] >= S {
			return nil, fmt.Errorf("llama: Step: row %d is full (%d tokens, cache length %d)", r, s.lens[r], S)
		}
	}
	g, err := m.graph(m.decode, graphKey{B, S}, m.buildDecode)
	if err != nil {
		return nil, err
	}
	half := m.cfg.HeadDim / 2
	negInf := float32(math.Inf(-1))
	tok := make([]int32, B)
	cos := make([]float32, B*half)
	sin := make([]float32, B*half)
	bias := make([]float32, B*S1)
	idx := make([]int32, B*2)
	for b := range B {
		idx[2*b] = int32(b)
		idx[2*b+1] = int32(S) // idle rows write to the scratch slot and attend slot 0 only
		for i := range half {
			cos[b*half+i] = 1
		}
		for j := 1; j < S1; j++ {
			bias[b*S1+j] = negInf
		}
	}
	for j, r := range rows {
		pos := s.lens[r]
		tok[r] = int32(tokens[j])
		idx[2*r+1] = int32(pos)
		m.rope(pos, cos[r*half:(r+1)*half], sin[r*half:(r+1)*half])
		row := bias[r*S1 : (r+1)*S1]
		for i := 1; i <= pos; i++ {
			row[i] = 0
		}
	}
	in := inputs{m: m}
	in.weights()
	in.add(tok, B)
	in.add(cos, B, half)
	in.add(sin, B, half)
	in.add(bias, B, S1)
	in.add(idx, B, 2)
	if in.err != nil {
		in.release()
		return nil, fmt.Errorf("llama: Step: %w", in.err)
	}
	flat, err := s.exec(g, in)
	if err != nil {
		return nil, err
	}
	V := m.cfg.VocabSize
	out := make([][]float32, len(rows))
	for j, r := range rows {
		out[j] = flat[r*V : (r+1)*V : (r+1)*V]
		s.lens[r]++
	}
	return out, nil
}

// exec runs a decode or prefill graph on in plus the session's caches, takes the updated caches back and
// returns the logits.
func (s *Session) exec(g *graph.Graph, in inputs) ([]float32, error) {
	for l := range s.k {
		in.addOwned(s.k[l], s.v[l])
	}
	out, err := s.m.run(g, in)
	if err != nil {
		// The cache buffers were donated to the failed execution: the session cannot go on.
		s.k, s.v = nil, nil
		s.err = err
		return nil, err
	}
	for l := range s.k {
		s.k[l], s.v[l] = out[1+2*l], out[2+2*l]
	}
	return s.m.readFloat32(out[0])
}

// Truncate shortens row to length tokens: the row continues from position length, keeping the cached
// prefix without recomputing it (later steps overwrite the slots beyond). To get the logits that follow the
// kept prefix again, truncate to length-1 and Step the token at length-1.
func (s *Session) Truncate(row, length int) error {
	if row < 0 || row >= s.batch {
		return fmt.Errorf("llama: Truncate: row %d is outside [0, %d)", row, s.batch)
	}
	if length < 0 || length > s.lens[row] {
		return fmt.Errorf("llama: Truncate: length %d is outside [0, %d] for row %d", length, s.lens[row], row)
	}
	s.lens[row] = length
	return nil
}
