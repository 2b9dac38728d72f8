package lm

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// hashTable is a Table whose logits identify the prefix they follow.
func hashTable(vocab int) *Table {
	return &Table{Vocab: vocab, Logits: func(prefix []int) []float32 {
		h := fnv.New64a()
		h.Write([]byte(Key(prefix)))
		r := rand.New(rand.NewPCG(h.Sum64(), 7))
		l := make([]float32, vocab)
		for i := range l {
			l[i] = float32(r.NormFloat64())
		}
		return l
	}}
}

// countingModel counts the tokens its sessions step.
type countingModel struct {
	*Table
	steps *int
}

func (m countingModel) NewSession(rows int) (Session, error) {
	s, err := m.Table.NewSession(rows)
	return countingSession{s, m.steps}, err
}

type countingSession struct {
	Session
	steps *int
}

func (s countingSession) Step(tokens, rows []int) ([][]float32, error) {
	*s.steps += len(rows)
	return s.Session.Step(tokens, rows)
}

func TestBatchMatchesTable(t *testing.T) {
	const vocab, rows = 5, 4
	tab := hashTable(vocab)
	steps := 0
	prompt := []int{3, 1}
	b, err := NewBatch(countingModel{tab, &steps}, prompt, rows)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	r := rand.New(rand.NewPCG(1, 2))
	for op := 0; op < 3000; op++ {
		row := r.IntN(rows)
		switch r.IntN(4) {
		case 0:
			b.Append(row, r.IntN(vocab))
		case 1:
			b.Truncate(row, r.IntN(b.Len(row)+1))
		case 2:
			toks := slices.Clone(b.Tokens(r.IntN(rows)))
			b.Set(row, toks[:r.IntN(len(toks)+1)])
		case 3:
			list := r.Perm(rows)[:1+r.IntN(rows)]
			got, err := b.Next(list)
			if err != nil {
				t.Fatal(err)
			}
			for j, row := range list {
				want := tab.Logits(append(slices.Clone(prompt), b.Tokens(row)...))
				if !slices.Equal(got[j], want) {
					t.Fatalf("op %d: row %d tokens %v: wrong logits", op, row, b.Tokens(row))
				}
			}
		}
	}
	if b.Evals() != len(prompt)+steps {
		t.Errorf("Evals = %d, want prompt %d + steps %d", b.Evals(), len(prompt), steps)
	}
}

// The cost model: what Next evaluates after each kind of edit.
func TestBatchEvals(t *testing.T) {
	tab := hashTable(4)
	prompt := []int{1, 2, 3}
	b, err := NewBatch(tab, prompt, 2)
	if err != nil {
		t.Fatal(err)
	}
	next := func(want int, rows ...int) {
		t.Helper()
		before := b.Evals()
		if _, err := b.Next(rows); err != nil {
			t.Fatal(err)
		}
		if got := b.Evals() - before; got != want {
			t.Errorf("Next(%v) with tokens %v: %d evaluations, want %d", rows, b.Tokens(rows[0]), got, want)
		}
	}
	if b.Evals() != 3 {
		t.Fatalf("prefill: %d evaluations, want 3", b.Evals())
	}
	next(0, 0, 1) // both rows reuse the prefill's logits
	b.Append(0, 1, 2, 3)
	next(3, 0) // three new tokens
	next(0, 0) // logits still held
	b.Truncate(0, 2)
	next(1, 0) // re-evaluate token 1 only
	b.Truncate(0, 0)
	next(0, 0) // the prompt's logits
	b.Append(0, 1, 2, 0, 0)
	b.Append(1, 1)
	next(5, 0, 1) // 4 + 1, in four batched steps
	b.Set(0, []int{1, 2, 3})
	next(1, 0) // keeps [1 2], evaluates 3
	b.Truncate(0, 3)
	next(0, 0) // no change
	// Row 0: 3 + 1 + 4 + 1 evaluations, row 1: 1.
	if r0, r1 := b.RowEvals(0), b.RowEvals(1); r0 != 9 || r1 != 1 || b.Evals() != 3+r0+r1 {
		t.Errorf("RowEvals = %d, %d (Evals %d), want 9, 1 (Evals 13)", r0, r1, b.Evals())
	}
}

func TestTransform(t *testing.T) {
	logits := []float32{2, 1, 1, 0.5, float32(math.Inf(-1)), -3}
	sum := func(lp []float64) (s float64) {
		for _, v := range lp {
			s += math.Exp(v)
		}
		return s
	}
	kept := func(lp []float64) (n int) {
		for _, v := range lp {
			if !math.IsInf(v, -1) {
				n++
			}
		}
		return n
	}
	lp := Transform{}.LogProbs(logits, nil)
	if math.Abs(sum(lp)-1) > 1e-12 || kept(lp) != 5 {
		t.Errorf("softmax: sum %v kept %d", sum(lp), kept(lp))
	}
	if d := lp[0] - lp[1]; math.Abs(d-1) > 1e-12 {
		t.Errorf("softmax: log ratio %v, want 1", d)
	}
	lp = Transform{Temperature: 2}.LogProbs(logits, lp)
	if d := lp[0] - lp[1]; math.Abs(d-0.5) > 1e-12 {
		t.Errorf("temperature 2: log ratio %v, want 0.5", d)
	}
	// Top-k keeps ties with the k-th logit.
	lp = Transform{TopK: 2}.LogProbs(logits, lp)
	if kept(lp) != 3 || math.Abs(sum(lp)-1) > 1e-12 {
		t.Errorf("top-2 with a tie: kept %d sum %v, want 3 and 1", kept(lp), sum(lp))
	}
	lp = Transform{TopK: 1}.LogProbs(logits, lp)
	if kept(lp) != 1 || lp[0] != 0 {
		t.Errorf("top-1: %v", lp)
	}
	if err := (Transform{TopP: 1.5}).Validate(); err == nil {
		t.Error("top-p 1.5 validated")
	}
}

// Top-p against its definition, on random logits with ties.
func TestTopP(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 2000; iter++ {
		n := 1 + r.IntN(30)
		logits := make([]float32, n)
		for i := range logits {
			logits[i] = float32(r.IntN(8)) * float32(1+r.IntN(3)) / 2
			if r.IntN(5) == 0 {
				logits[i] = -40 // far below: exercises the candidate cut
			}
		}
		p := r.Float64()
		tf := Transform{TopP: p, TopK: r.IntN(n + 1)}
		got := tf.LogProbs(logits, nil)
		base := Transform{TopK: tf.TopK}.LogProbs(logits, nil)
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			switch {
			case base[a] > base[b]:
				return -1
			case base[a] < base[b]:
				return 1
			}
			return 0
		})
		before := 0.0
		for _, i := range order {
			want := before < p && !math.IsInf(base[i], -1)
			if p == 0 {
				want = !math.IsInf(base[i], -1)
			}
			if !math.IsInf(got[i], -1) != want {
				t.Fatalf("logits %v top-p %v top-k %d: token %d kept=%v, want %v", logits, p, tf.TopK, i, !math.IsInf(got[i], -1), want)
			}
			before += math.Exp(base[i])
		}
	}
}

func TestEntropy(t *testing.T) {
	lp := Transform{}.LogProbs([]float32{0, 0, 0, 0}, nil)
	if h := Entropy(lp); math.Abs(h-math.Log(4)) > 1e-12 {
		t.Errorf("uniform over 4: entropy %v, want log 4", h)
	}
	lp = Transform{}.LogProbs([]float32{0, float32(math.Inf(-1))}, nil)
	if h := Entropy(lp); h != 0 {
		t.Errorf("point mass: entropy %v", h)
	}
}

func TestBigramAndMap(t *testing.T) {
	bg := NewBigram([]float32{0, 1}, [][]float32{{2, 3}, {4, 5}})
	if l := bg.Logits(nil); l[1] != 1 {
		t.Error("bigram start")
	}
	if l := bg.Logits([]int{0, 1}); l[0] != 4 {
		t.Error("bigram after 1")
	}
	m := TableFromMap(2, map[string][]float32{Key([]int{1}): {7, 8}}, []float32{0, 0})
	if l := m.Logits([]int{1}); l[0] != 7 {
		t.Error("map hit")
	}
	if l := m.Logits([]int{0}); l[0] != 0 {
		t.Error("map fallback")
	}
}

// At a temperature so small that the logits divided by it overflow, P is
// still the distribution it tends to: the largest logit's token has log P
// 0, the others −Inf or a finite value far below; no NaN.
func TestTransformTinyTemperature(t *testing.T) {
	for _, temp := range []float64{1e-300, 1e-310, 5e-324} {
		lp := Transform{Temperature: temp}.LogProbs([]float32{1, 2, -3, 2.5}, nil)
		if lp[3] != 0 {
			t.Errorf("T=%g: log P of the largest logit = %v, want 0", temp, lp[3])
		}
		for i, x := range lp[:3] {
			if math.IsNaN(x) || x >= -1e299 {
				t.Errorf("T=%g: log P[%d] = %v, want far below 0", temp, i, x)
			}
		}
	}
}
