package llama

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	backends "github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
)

// Session is a batch of rows decoded together, each row a token sequence with its own length in a shared
// KV cache of Session.MaxSeq positions per row. A Session is not safe for concurrent use.
type Session struct {
	m     *Model
	batch int
	seq   int               // the most positions a row may hold
	cap   int               // positions the caches hold now (capFor), ≤ seq
	k, v  []backends.Buffer // per layer: K [B, kvH, hd, cap+1], V [B, kvH, cap+1, hd]
	lens  []int
	err   error // set when an execution failed after consuming the cache

	cpu  *cpuModel // the cpu engine's weights, or nil
	rows []*cpuRow // the cpu engine's caches, one per row
	sc   cpuScratch
}

// NewSession returns a session of batch rows, all empty, with a cache of Options.MaxSeq positions per row,
// made on the device. batch 0 means Options.Batch. The caches hold what the rows have reached, in length
// buckets (capFor), and grow on the device as the rows do: at most 2·layers·batch·kvHeads·(MaxSeq+1)·HeadDim
// elements of the model's dtype (Model.SessionBytes).
func (m *Model) NewSession(batch int) (*Session, error) { return m.NewSessionSeq(batch, 0) }

// NewSessionSeq is NewSession with at most maxSeq ≤ Options.MaxSeq positions per row (0 means
// Options.MaxSeq).
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
	return m.newSession(batch, maxSeq, capFor(1, maxSeq))
}

// newSession returns a session of batch rows of at most maxSeq positions whose caches hold capacity.
func (m *Model) newSession(batch, maxSeq, capacity int) (*Session, error) {
	s := &Session{m: m, batch: batch, seq: maxSeq, cap: capacity, lens: make([]int, batch)}
	if s.cpu = m.cpuEngine(); s.cpu != nil {
		s.rows = make([]*cpuRow, batch)
		for i := range s.rows {
			s.rows[i] = &cpuRow{}
		}
		return s, nil
	} else if m.backend == nil {
		return nil, errors.New("llama: model is closed")
	}
	g, err := m.graph(graphKey{kind: zerosGraph, rows: batch, seq: s.cap}, m.buildZeros)
	if err != nil {
		return nil, err
	}
	out, err := m.run(g, inputs{m: m})
	if err != nil {
		return nil, fmt.Errorf("llama: NewSession: %w", err)
	}
	s.setCaches(out)
	return s, nil
}

// setCaches takes the caches of bufs (K, V, K, V, ..., one pair per layer) as the session's.
func (s *Session) setCaches(bufs []backends.Buffer) {
	s.k, s.v = s.k[:0], s.v[:0]
	for l := 0; l+1 < len(bufs); l += 2 {
		s.k, s.v = append(s.k, bufs[l]), append(s.v, bufs[l+1])
	}
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
	s.cpu, s.rows = nil, nil
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
// one padded, into a one-row cache that a device-side broadcast then copies into every row of the session.
//
// The model remembers the last prompt it prefilled: a session of any batch size that
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
	capacity := capFor(n, s.seq)
	if s.cpu != nil {
		p := s.cpu.prefix(prompt)
		defer p.mu.RUnlock()
		room := capFor(min(n+1, s.seq), s.seq) // the step that follows must not grow every row at once
		for b, row := range s.rows {
			row.copyFrom(m.cfg, p.row, n, room)
			s.lens[b] = n
		}
		return slices.Clone(p.logits), nil
	}
	p := m.rememberedPrefix(prompt, capacity)
	err := errReleased
	if p != nil {
		err = s.fill(p)
	}
	if errors.Is(err, errReleased) { // not remembered, or replaced by another prompt since
		if p, err = m.computePrefix(prompt, capacity); err != nil {
			return nil, err
		}
		err = s.fill(p) // before p is shared: no other session can release it yet
		m.rememberPrefix(p)
	}
	if err != nil {
		return nil, err
	}
	for b := range s.lens {
		s.lens[b] = n
	}
	return slices.Clone(p.logits), nil
}

// prefix is a prompt's keys and values in a one-row cache of seq positions (capFor the prompt's length) on
// the device, and the logits that follow it. Sessions read it under mu; release frees it under mu.
type prefix struct {
	prompt []int
	seq    int
	mu     sync.RWMutex
	kv     []backends.Buffer // per layer K [1, kvH, hd, seq+1], V [1, kvH, seq+1, hd]; nil once released
	logits []float32
}

// errReleased is fill's error for a prefix released after it was looked up.
var errReleased = errors.New("llama: Prefill: the prompt's cache was released")

// release frees the prefix's device buffers once no session is reading them.
func (p *prefix) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range p.kv {
		_ = b.Finalize()
	}
	p.kv = nil
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
	old := m.lastPrefix
	m.lastPrefix = p
	m.mu.Unlock()
	if old != nil {
		old.release()
	}
}

// computePrefix runs the prefill graph over prompt, chunk by chunk, into a one-row cache of seq positions.
func (m *Model) computePrefix(prompt []int, seq int) (*prefix, error) {
	one, err := m.newSession(1, seq, seq)
	if err != nil {
		return nil, err
	}
	defer one.Close()
	g, err := m.graph(graphKey{kind: prefillGraph, rows: 1, seq: seq}, m.buildPrefill)
	if err != nil {
		return nil, err
	}
	var logits []float32
	for start := 0; start < len(prompt); start += m.opts.PrefillChunk {
		in, err := m.prefillInputs(prompt, start, seq)
		if err != nil {
			return nil, err
		}
		if logits, err = one.exec(g, in, 0); err != nil {
			return nil, err
		}
	}
	p := &prefix{prompt: slices.Clone(prompt), seq: seq, logits: logits}
	for l := range one.k {
		p.kv = append(p.kv, one.k[l], one.v[l])
	}
	one.k, one.v = nil, nil
	m.mu.Lock()
	m.prefixes++
	m.mu.Unlock()
	return p, nil
}

// prefillInputs are the inputs of the prefill graph for the chunk of prompt at start, into a cache of seq
// positions.
func (m *Model) prefillInputs(prompt []int, start, seq int) (inputs, error) {
	span := seq + 1
	n, C := len(prompt), m.opts.PrefillChunk
	half := m.cfg.HeadDim / 2
	negInf := float32(math.Inf(-1))
	tokens := make([]int32, C)
	cos := make([]float32, C*half)
	sin := make([]float32, C*half)
	bias := make([]float32, C*span)
	idx := make([]int32, C*2)
	last := []int32{int32(min(n-start, C) - 1)}
	for i := range C {
		pos := start + i
		row := bias[i*span : (i+1)*span]
		slot, attend := seq, 0 // padding writes the scratch slot and attends slot 0
		if pos < n {
			tokens[i] = int32(prompt[pos])
			slot, attend = pos, pos
		}
		m.rope(attend, cos[i*half:(i+1)*half], sin[i*half:(i+1)*half])
		for j := attend + 1; j < span; j++ {
			row[j] = negInf
		}
		idx[i*2+1] = int32(slot) // row 0
	}
	in := m.tokenInputs(tokens, cos, sin, bias, span)
	in.add(idx, 1, C, 2)
	in.add(last, 1)
	if in.err != nil {
		in.release()
		return inputs{}, fmt.Errorf("llama: Prefill: %w", in.err)
	}
	return in, nil
}

// fill replaces the session's caches by caches whose every row holds the prefix p, copied on the device.
func (s *Session) fill(p *prefix) error {
	m := s.m
	g, err := m.graph(graphKey{kind: fillGraph, rows: s.batch, seq: p.seq}, m.buildFill)
	if err != nil {
		return err
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.kv == nil {
		return errReleased
	}
	in := inputs{m: m}
	in.addKept(p.kv...)
	out, err := m.run(g, in)
	if err != nil {
		return fmt.Errorf("llama: Prefill: %w", err)
	}
	for l := range s.k {
		_ = s.k[l].Finalize()
		_ = s.v[l].Finalize()
	}
	s.setCaches(out)
	s.cap = p.seq
	return nil
}

// grow enlarges the caches to hold capacity positions, on the device, keeping their contents.
func (s *Session) grow(capacity int) error {
	if capacity <= s.cap {
		return nil
	}
	m := s.m
	g, err := m.graph(graphKey{kind: growGraph, rows: s.batch, seq: s.cap, to: capacity}, m.buildGrow)
	if err != nil {
		return err
	}
	in := inputs{m: m}
	for l := range s.k {
		in.addOwned(s.k[l], s.v[l])
	}
	out, err := m.run(g, in)
	if err != nil {
		s.k, s.v = nil, nil // donated to the failed execution
		s.err = err
		return err
	}
	s.setCaches(out)
	s.cap = capacity
	return nil
}

// capFor returns the cache capacity (positions) for rows that need the first need positions, in a session of
// at most seq: the smallest length bucket 64, 96, 128, 192, 256, 384, ... (64·{1, 1.5}·2^i) that holds need,
// or seq. A session's caches hold one bucket and grow to the next when a row needs it, so that a step
// attends over at most 1.5 times the positions its rows have reached (not the whole session length), and a
// session of S positions compiles about 2·log2(S/64) decode graphs.
func capFor(need, seq int) int {
	for b := 64; b < seq; b *= 2 {
		if need <= b {
			return b
		}
		if need <= b+b/2 && b+b/2 < seq {
			return b + b/2
		}
	}
	return seq
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
	seen := make([]bool, B)
	need := 1
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
		need = max(need, s.lens[r]+1)
	}
	if s.cpu != nil {
		return s.cpuStep(tokens, rows), nil
	}
	if err := s.grow(capFor(need, S)); err != nil {
		return nil, err
	}
	g, err := m.graph(graphKey{kind: decodeGraph, rows: B, seq: s.cap}, m.buildDecode)
	if err != nil {
		return nil, err
	}
	tok, cos, sin, bias, idx := s.stepInputs(tokens, rows)
	in := m.tokenInputs(tok, cos, sin, bias, s.cap+1)
	in.add(idx, B, 2)
	if in.err != nil {
		in.release()
		return nil, fmt.Errorf("llama: Step: %w", in.err)
	}
	flat, err := s.exec(g, in, B*m.cfg.VocabSize)
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

// cpuStep is Step on the cpu engine: each row's cache grows to the next length bucket when it must, and
// the step computes only the listed rows.
func (s *Session) cpuStep(tokens, rows []int) [][]float32 {
	cached := make([]*cpuRow, len(rows))
	pos := make([]int, len(rows))
	for j, r := range rows {
		cached[j], pos[j] = s.rows[r], s.lens[r]
		cached[j].grow(s.m.cfg, capFor(pos[j]+1, s.seq), pos[j])
	}
	s.cpu.pass(&s.sc, tokens, cached, pos, len(tokens))
	for _, r := range rows {
		s.lens[r]++
	}
	return s.cpu.logits(&s.sc, nil)
}

// stepInputs are the host-computed inputs of a decode step (see graph.go): tokens [B], cos, sin [B, hd/2],
// bias [B, cap+1] and write index [B, 2].
func (s *Session) stepInputs(tokens, rows []int) (tok []int32, cos, sin, bias []float32, idx []int32) {
	B, span := s.batch, s.cap+1
	half := s.m.cfg.HeadDim / 2
	negInf := float32(math.Inf(-1))
	tok = make([]int32, B)
	cos = make([]float32, B*half)
	sin = make([]float32, B*half)
	bias = make([]float32, B*span)
	idx = make([]int32, B*2)
	for b := range B {
		idx[2*b] = int32(b)
		idx[2*b+1] = int32(s.cap) // idle rows write to the scratch slot and attend slot 0 only
		for i := range half {
			cos[b*half+i] = 1
		}
		for j := 1; j < span; j++ {
			bias[b*span+j] = negInf
		}
	}
	for j, r := range rows {
		pos := s.lens[r]
		tok[r] = int32(tokens[j])
		idx[2*r+1] = int32(pos)
		s.m.rope(pos, cos[r*half:(r+1)*half], sin[r*half:(r+1)*half])
		row := bias[r*span : (r+1)*span]
		for i := 1; i <= pos; i++ {
			row[i] = 0
		}
	}
	return tok, cos, sin, bias, idx
}

// exec runs a decode or prefill graph on in plus the session's caches, takes the updated caches back and
// returns the logits. When size, the logits' count, is known (> 0), their Go memory is allocated on another
// goroutine while the device runs: zeroing a fresh 51 MB slice (batch 100 × 128,256) took ~6.5 ms of a
// 27 ms decode step on an H200 (analysis/gpu/README.md), and the slice must be fresh because callers keep it.
func (s *Session) exec(g *graph.Graph, in inputs, size int) ([]float32, error) {
	dst := make(chan []float32, 1)
	if size > 0 {
		go func() { dst <- make([]float32, size) }()
	} else {
		dst <- nil
	}
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
	return s.m.readFloat32Into(out[0], <-dst)
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
