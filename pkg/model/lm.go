package model

import (
	"github.com/gasplab/gasp/pkg/llama"
	"github.com/gasplab/gasp/pkg/lm"
)

// LM adapts a llama.Model to lm.Model, so that the samplers, which see
// models only through pkg/lm, can run it: the only such adapter. Its
// sessions have caches of Seq positions per row (0: the model's MaxSeq);
// see WithSeq.
type LM struct {
	*llama.Model
	Seq int
}

// VocabSize returns the size of the model's output layer.
func (m LM) VocabSize() int { return m.Config().VocabSize }

// NewSession starts a batched decoding session of rows rows.
func (m LM) NewSession(rows int) (lm.Session, error) {
	s, err := m.Model.NewSessionSeq(rows, m.Seq)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return s, nil
}

// WithSeq returns the model with sessions whose caches hold n positions,
// rounded up by CacheLen and at most the loaded model's MaxSeq. A decoding
// step attends over the whole cache: a task of short prompts should not pay
// for the longest prompt of an experiment.
func (m LM) WithSeq(n int) LM {
	m.Seq = min(CacheLen(n), m.MaxSeq())
	return m
}

// CacheLen rounds n up to the next of 256, 384, 512, 768, 1024, 1536, …:
// few cache lengths, each compiling its own graphs, serve every task.
func CacheLen(n int) int {
	size := 256
	for size < n {
		if size&(size-1) == 0 { // a power of two: next is 1.5×
			size += size / 2
		} else {
			size += size / 3
		}
	}
	return size
}
