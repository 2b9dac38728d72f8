package llama

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// forward returns m.Forward(ids), failing the test on an error.
func forward(t *testing.T, m *Model, ids []int) [][]float32 {
	t.Helper()
	out, err := m.Forward(ids)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// lastLogits returns Forward(ids)'s logits at the last position.
func lastLogits(t *testing.T, m *Model, ids []int) []float32 {
	t.Helper()
	out := forward(t, m, ids)
	return out[len(out)-1]
}

// newSession returns a session of batch rows of m, closed when the test ends.
func newSession(t testing.TB, m *Model, batch int) *Session {
	t.Helper()
	s, err := m.NewSession(batch)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// checkClose fails when got and want differ by more than tol anywhere.
func checkClose(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if d := maxAbsDiff(t, [][]float32{got}, [][]float32{want}); d > tol {
		t.Errorf("%s: max abs difference %.3g > %g", what, d, tol)
	}
}

const cacheTolerance = 1e-4

// TestCachedDecodingMatchesForward: prefill (several chunks, the last one padded) then steps give the
// logits of a full forward pass at every position, for each model family (familyConfigs).
func TestCachedDecodingMatchesForward(t *testing.T) {
	for _, cfg := range familyConfigs() {
		t.Run(cfg.family(), func(t *testing.T) { testCachedDecodingMatchesForward(t, cfg) })
	}
}

func testCachedDecodingMatchesForward(t *testing.T, cfg Config) {
	m := newRandomModel(t, cfg, Options{MaxSeq: 64, PrefillChunk: 8})
	ids := randomIDs(40, cfg.VocabSize, 2)
	full := forward(t, m, ids)
	for _, p := range []int{1, 8, 19} {
		s, err := m.NewSession(1)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Prefill(ids[:p])
		if err != nil {
			t.Fatal(err)
		}
		checkClose(t, "prefill", got, full[p-1], cacheTolerance)
		for i := p; i < len(ids); i++ {
			out, err := s.Step([]int{ids[i]}, []int{0})
			if err != nil {
				t.Fatal(err)
			}
			checkClose(t, "step", out[0], full[i], cacheTolerance)
		}
		if s.Len(0) != len(ids) {
			t.Errorf("Len = %d, want %d", s.Len(0), len(ids))
		}
		s.Close()
	}
}

// TestShortSession: a session with a shorter cache than Options.MaxSeq computes the same logits, compiles its
// own graphs, and refuses what does not fit in it.
func TestShortSession(t *testing.T) {
	cfg := smallConfig()
	m := newRandomModel(t, cfg, Options{MaxSeq: 64, PrefillChunk: 8})
	ids := randomIDs(20, cfg.VocabSize, 5)
	full := forward(t, m, ids)
	before := m.Compiles()
	s, err := m.NewSessionSeq(2, 20)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.MaxSeq() != 20 {
		t.Errorf("MaxSeq() = %d, want 20", s.MaxSeq())
	}
	got, err := s.Prefill(ids[:11])
	if err != nil {
		t.Fatal(err)
	}
	checkClose(t, "prefill", got, full[10], cacheTolerance)
	for i := 11; i < len(ids); i++ {
		out, err := s.Step([]int{ids[i], ids[i]}, []int{0, 1})
		if err != nil {
			t.Fatal(err)
		}
		checkClose(t, "step row 0", out[0], full[i], cacheTolerance)
		checkClose(t, "step row 1", out[1], full[i], cacheTolerance)
	}
	if _, err := s.Step([]int{1}, []int{0}); err == nil || !strings.Contains(err.Error(), "row 0 is full (20 tokens, cache length 20)") {
		t.Errorf("stepping a full row: error %v", err)
	}
	if got := m.Compiles() - before; got != 5 && m.cpu == nil {
		t.Errorf("%d graphs compiled for the short session, want 5 (zeros for 2 and 1 rows, prefill, fill, decode)", got)
	}
	long := newSession(t, m, 2)
	if long.MaxSeq() != 64 {
		t.Errorf("NewSession: MaxSeq() = %d, want 64", long.MaxSeq())
	}
}

// TestRememberedPrefix: a session that prefills the prompt the model prefilled last gets the same caches and
// logits, bit for bit, without computing them; another prompt or cache length is computed.
func TestRememberedPrefix(t *testing.T) {
	cfg := smallConfig()
	m := newRandomModel(t, cfg, Options{MaxSeq: 48, PrefillChunk: 8})
	ids := randomIDs(30, cfg.VocabSize, 6)
	run := func(batch, seq, prompt int) [][]float32 {
		t.Helper()
		s, err := m.NewSessionSeq(batch, seq)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		first, err := s.Prefill(ids[:prompt])
		if err != nil {
			t.Fatal(err)
		}
		out := [][]float32{first}
		for i := prompt; i < len(ids); i++ {
			rows := make([]int, batch)
			toks := make([]int, batch)
			for r := range rows {
				rows[r], toks[r] = r, ids[i]
			}
			step, err := s.Step(toks, rows)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, step[batch-1]) // the last row: every row must hold the prefix
		}
		return out
	}
	full := forward(t, m, ids)
	a := run(2, 40, 13)
	if m.computedPrefixes() != 1 {
		t.Fatalf("%d prefixes computed, want 1", m.computedPrefixes())
	}
	b := run(2, 40, 13) // the same batch size: decoding differs in the last bits between batch sizes
	if m.computedPrefixes() != 1 {
		t.Errorf("%d prefixes computed after prefilling the same prompt again, want 1", m.computedPrefixes())
	}
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Errorf("position %d: remembered prefix gives other logits", 12+i)
		}
		checkClose(t, "remembered prefix", b[i], full[12+i], cacheTolerance)
	}
	e := run(3, 40, 13)
	if !slices.Equal(e[0], a[0]) {
		t.Error("remembered prefix in a larger batch: other logits")
	}
	for i := range e {
		checkClose(t, "remembered prefix, batch 3", e[i], full[12+i], cacheTolerance)
	}
	c := run(1, 40, 9) // another prompt
	checkClose(t, "other prompt", c[0], full[8], cacheTolerance)
	d := run(1, 48, 9) // another cache length
	checkClose(t, "other cache length", d[len(d)-1], full[len(full)-1], cacheTolerance)
	want := 3
	if m.cpu != nil {
		want = 2 // the cpu engine remembers a prompt whatever the sessions' cache length
	}
	if m.computedPrefixes() != want {
		t.Errorf("%d prefixes computed, want %d", m.computedPrefixes(), want)
	}
}

// TestTruncateContinue: truncating a row and continuing with other tokens gives the logits of a fresh run
// of the new sequence, and rows that are not stepped keep their state.
func TestTruncateContinue(t *testing.T) {
	cfg := smallConfig()
	m := newRandomModel(t, cfg, Options{MaxSeq: 48, PrefillChunk: 8})
	prompt := randomIDs(5, cfg.VocabSize, 3)
	a := randomIDs(30, cfg.VocabSize, 4)
	b := randomIDs(30, cfg.VocabSize, 5)
	s := newSession(t, m, 2)
	if _, err := s.Prefill(prompt); err != nil {
		t.Fatal(err)
	}
	for _, tok := range a {
		if _, err := s.Step([]int{tok, tok}, []int{0, 1}); err != nil {
			t.Fatal(err)
		}
	}
	// Row 0 keeps prompt + a[:7], then continues with b; row 1 keeps everything and continues with b too.
	const keep = 7
	if err := s.Truncate(0, len(prompt)+keep); err != nil {
		t.Fatal(err)
	}
	if s.Len(0) != len(prompt)+keep || s.Len(1) != len(prompt)+len(a) {
		t.Fatalf("lengths %d, %d", s.Len(0), s.Len(1))
	}
	seq0 := slices.Concat(prompt, a[:keep])
	seq1 := slices.Concat(prompt, a)
	for i := range 10 {
		out, err := s.Step([]int{b[i], b[i]}, []int{0, 1})
		if err != nil {
			t.Fatal(err)
		}
		seq0 = append(seq0, b[i])
		seq1 = append(seq1, b[i])
		checkClose(t, "truncated row", out[0], lastLogits(t, m, seq0), cacheTolerance)
		checkClose(t, "untruncated row", out[1], lastLogits(t, m, seq1), cacheTolerance)
	}
	// Truncating into the prompt and to zero works too.
	if err := s.Truncate(0, 2); err != nil {
		t.Fatal(err)
	}
	out, err := s.Step([]int{b[20]}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	checkClose(t, "truncated into the prompt", out[0], lastLogits(t, m, []int{prompt[0], prompt[1], b[20]}), cacheTolerance)
	if err := s.Truncate(1, 0); err != nil {
		t.Fatal(err)
	}
	out, err = s.Step([]int{b[21]}, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	checkClose(t, "truncated to empty", out[0], lastLogits(t, m, []int{b[21]}), cacheTolerance)
}

// TestBatchedRows: rows of different lengths stepped in varying subsets and orders give the logits of
// single-sequence runs.
func TestBatchedRows(t *testing.T) {
	cfg := smallConfig()
	cfg.TieWordEmbeddings = true
	m := newRandomModel(t, cfg, Options{MaxSeq: 40, PrefillChunk: 16})
	const B = 5
	s := newSession(t, m, B)
	prompt := randomIDs(3, cfg.VocabSize, 6)
	if _, err := s.Prefill(prompt); err != nil {
		t.Fatal(err)
	}
	seqs := make([][]int, B)
	for r := range seqs {
		seqs[r] = slices.Clone(prompt)
	}
	stream := randomIDs(200, cfg.VocabSize, 7)
	for step := range 12 {
		// Row r skips every (r+2)-th step; rows are listed in decreasing order.
		var rows, tokens []int
		for r := B - 1; r >= 0; r-- {
			if (step+r)%(r+2) != 0 {
				rows = append(rows, r)
				tokens = append(tokens, stream[step*B+r])
			}
		}
		if len(rows) == 0 {
			continue
		}
		out, err := s.Step(tokens, rows)
		if err != nil {
			t.Fatal(err)
		}
		for j, r := range rows {
			seqs[r] = append(seqs[r], tokens[j])
			checkClose(t, "batched row", out[j], lastLogits(t, m, seqs[r]), cacheTolerance)
		}
		for r := range B {
			if s.Len(r) != len(seqs[r]) {
				t.Fatalf("row %d: Len %d, want %d", r, s.Len(r), len(seqs[r]))
			}
		}
	}
	lens := map[int]bool{}
	for r := range B {
		lens[s.Len(r)] = true
	}
	if len(lens) < 3 {
		t.Errorf("rows ended with too few distinct lengths: %v", lens)
	}
}

// TestNoRecompilation: after the first prefill and step, other prompt lengths, steps, row subsets and
// truncations compile nothing.
func TestNoRecompilation(t *testing.T) {
	cfg := smallConfig()
	m := newRandomModel(t, cfg, Options{MaxSeq: 32, PrefillChunk: 8})
	s := newSession(t, m, 3)
	if _, err := s.Prefill([]int{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Step([]int{4, 5, 6}, []int{0, 1, 2}); err != nil {
		t.Fatal(err)
	}
	n := m.Compiles()
	if n != 5 && m.cpu == nil {
		t.Errorf("%d graphs compiled after one prefill and one step, want 5 (zeros for 3 and 1 rows, prefill, fill, decode)", n)
	}
	if _, err := s.Prefill(randomIDs(21, cfg.VocabSize, 8)); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := s.Step([]int{i}, []int{i % 3}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Truncate(1, 4); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Step([]int{9, 9}, []int{1, 2}); err != nil {
		t.Fatal(err)
	}
	if got := m.Compiles(); got != n {
		t.Errorf("%d graphs compiled, want still %d", got, n)
	}
}

func TestSessionErrors(t *testing.T) {
	cfg := smallConfig()
	m := newRandomModel(t, cfg, Options{MaxSeq: 8, PrefillChunk: 4})
	s := newSession(t, m, 2)
	V := cfg.VocabSize
	for _, tc := range []struct {
		name string
		f    func() error
		want string
	}{
		{"empty prompt", func() error { _, err := s.Prefill(nil); return err }, "empty prompt"},
		{"long prompt", func() error { _, err := s.Prefill(make([]int, 9)); return err }, "exceeds the cache length 8"},
		{"cache too long", func() error { _, err := m.NewSessionSeq(1, 9); return err }, "cache length 9 outside"},
		{"bad prompt id", func() error { _, err := s.Prefill([]int{1, V}); return err }, "outside [0, vocab_size"},
		{"tokens/rows", func() error { _, err := s.Step([]int{1}, []int{0, 1}); return err }, "1 tokens for 2 rows"},
		{"bad row", func() error { _, err := s.Step([]int{1}, []int{2}); return err }, "row 2 is outside"},
		{"duplicate row", func() error { _, err := s.Step([]int{1, 1}, []int{1, 1}); return err }, "listed twice"},
		{"bad token", func() error { _, err := s.Step([]int{-1}, []int{0}); return err }, "token id -1"},
		{"truncate longer", func() error { return s.Truncate(0, 1) }, "length 1 is outside [0, 0]"},
		{"truncate bad row", func() error { return s.Truncate(-1, 0) }, "row -1 is outside"},
		{"forward empty", func() error { _, err := m.Forward(nil); return err }, "no ids"},
	} {
		err := tc.f()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	// A full row refuses another token; the other row goes on.
	if _, err := s.Prefill(make([]int, 8)); err != nil {
		t.Fatal(err)
	}
	if err := s.Truncate(1, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Step([]int{1}, []int{0}); err == nil || !strings.Contains(err.Error(), "row 0 is full") {
		t.Errorf("stepping a full row: error %v", err)
	}
	if _, err := s.Step([]int{1}, []int{1}); err != nil {
		t.Errorf("stepping a row after a refused step: %v", err)
	}
}

func TestOptions(t *testing.T) {
	cfg := smallConfig()
	w := randomWeights(cfg, 1)
	if _, err := New(cfg, w, Options{MaxSeq: cfg.MaxPositionEmbeddings + 1}); err == nil || !strings.Contains(err.Error(), "exceeds the model's max_position_embeddings") {
		t.Errorf("MaxSeq too large: error %v", err)
	}
	if _, err := New(cfg, w, Options{Backend: "nosuch"}); err == nil || !strings.Contains(err.Error(), `backend "nosuch" is not compiled in`) {
		t.Errorf("unknown backend: error %v", err)
	}
	t.Setenv("GOMLX_BACKEND", "xla:cpu")
	if _, err := New(cfg, w, Options{}); err == nil || !strings.Contains(err.Error(), `backend "xla" is not compiled in`) {
		t.Errorf("$GOMLX_BACKEND=xla:cpu: error %v", err)
	}
	m, err := New(cfg, w, Options{Backend: "go"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	o := m.Options()
	if o.MaxSeq != min(DefaultMaxSeq, cfg.MaxPositionEmbeddings) || o.Batch != 1 || o.PrefillChunk != DefaultPrefillChunk {
		t.Errorf("defaults: %+v", o)
	}
	s := newSession(t, m, 0)
	if s.Batch() != 1 {
		t.Errorf("NewSession(0).Batch() = %d, want 1", s.Batch())
	}
}

func TestBackendConfig(t *testing.T) {
	for _, tc := range []struct{ config, want string }{
		{"go", "go:ops_sequential"},
		{"go:", "go:ops_sequential"},
		{"go:dotgeneral_small", "go:dotgeneral_small,ops_sequential"},
		{"go:ops_parallel", "go:ops_parallel"},
		{"go:parallelism=1", "go:parallelism=1,ops_sequential"},
		{"go:parallelism=4,ops_sequential", "go:parallelism=4,ops_sequential"},
		{"xla:cpu", "xla:cpu"},
	} {
		if got := BackendConfig(tc.config); got != tc.want {
			t.Errorf("BackendConfig(%q) = %q, want %q", tc.config, got, tc.want)
		}
	}
}

// TestOneWorker decodes with a pure-Go backend limited to one worker, which deadlocks without the
// ops_sequential that BackendConfig adds.
func TestOneWorker(t *testing.T) {
	cfg := smallConfig()
	m := newRandomModel(t, cfg, Options{MaxSeq: 16, PrefillChunk: 4, Backend: "go:parallelism=1"})
	done := make(chan error, 1)
	go func() {
		s, err := m.NewSession(2)
		if err == nil {
			_, err = s.Prefill([]int{1, 2, 3, 4, 5})
		}
		if err == nil {
			_, err = s.Step([]int{6, 7}, []int{0, 1})
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("decoding with one worker did not finish in 2 minutes (deadlock?)")
	}
}

func TestCapFor(t *testing.T) {
	for _, tc := range []struct{ need, S1, want int }{
		{1, 32, 32}, {32, 32, 32}, {1, 512, 64}, {64, 512, 64}, {65, 512, 96}, {97, 512, 128}, {129, 512, 192},
		{193, 512, 256}, {257, 512, 384}, {385, 512, 512}, {512, 512, 512}, {1, 100, 64}, {90, 100, 96}, {97, 100, 100},
	} {
		if got := capFor(tc.need, tc.S1); got != tc.want {
			t.Errorf("capFor(%d, %d) = %d, want %d", tc.need, tc.S1, got, tc.want)
		}
	}
}

// TestSpansMatchForward decodes across several length buckets (spans 64, 96, 128, 192 and the whole cache),
// with rows of different lengths in one step and a truncation back into a smaller bucket, and checks every
// step's logits against a full forward pass.
func TestSpansMatchForward(t *testing.T) {
	cfg := smallConfig()
	m := newRandomModel(t, cfg, Options{MaxSeq: 240, PrefillChunk: 16})
	ids := randomIDs(240, cfg.VocabSize, 5)
	full := forward(t, m, ids)
	s := newSession(t, m, 2)
	const p = 70 // the prefill crosses from span 64 to 96
	got, err := s.Prefill(ids[:p])
	if err != nil {
		t.Fatal(err)
	}
	checkClose(t, "prefill", got, full[p-1], cacheTolerance)
	// Row 1 is truncated back to 20 tokens at 150 and follows row 0 120 tokens behind.
	for i := p; i < len(ids); i++ {
		if i == 150 {
			if err := s.Truncate(1, 20); err != nil {
				t.Fatal(err)
			}
		}
		rows, toks := []int{0, 1}, []int{ids[i], ids[s.Len(1)]}
		want := [][]float32{full[i], full[s.Len(1)]}
		out, err := s.Step(toks, rows)
		if err != nil {
			t.Fatal(err)
		}
		checkClose(t, fmt.Sprintf("step %d row 0", i), out[0], want[0], cacheTolerance)
		checkClose(t, fmt.Sprintf("step %d row 1", i), out[1], want[1], cacheTolerance)
	}
}

// TestConcurrentPrefill: sessions on several goroutines prefilling different prompts, so that the
// remembered prompt keeps being replaced (and released) under each other, all get their prompts' logits.
func TestConcurrentPrefill(t *testing.T) {
	cfg := smallConfig()
	m := newRandomModel(t, cfg, Options{MaxSeq: 48, PrefillChunk: 8})
	var prompts [][]int
	var want [][]float32
	for i := range 4 {
		prompts = append(prompts, randomIDs(5+3*i, cfg.VocabSize, uint64(20+i)))
		want = append(want, lastLogits(t, m, prompts[i]))
	}
	errs := make(chan error, len(prompts))
	for i := range prompts {
		go func() {
			s, err := m.NewSession(2)
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			for range 10 {
				got, err := s.Prefill(prompts[i])
				if err != nil {
					errs <- err
					return
				}
				for j := range got {
					if d := math.Abs(float64(got[j] - want[i][j])); d > cacheTolerance {
						errs <- fmt.Errorf("prompt %d: logit %d differs by %g", i, j, d)
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for range prompts {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
