package lm

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Finite returns m with every logit its sessions return checked: a NaN or
// infinite logit (NaN or infinite weights) is an error, not a silent dead
// end or a sample of log probability 0. The check reads each logit once,
// far less than the forward pass that computed it.
func Finite(m Model) Model { return finiteModel{m} }

type finiteModel struct{ Model }

func (m finiteModel) NewSession(rows int) (Session, error) {
	s, err := m.Model.NewSession(rows)
	if err != nil {
		return nil, err
	}
	return finiteSession{s}, nil
}

type finiteSession struct{ Session }

func (s finiteSession) Prefill(prompt []int) ([]float32, error) {
	out, err := s.Session.Prefill(prompt)
	if err == nil {
		err = CheckFinite(out, "the prompt")
	}
	return out, err
}

func (s finiteSession) Step(tokens, rows []int) ([][]float32, error) {
	out, err := s.Session.Step(tokens, rows)
	for j := 0; err == nil && j < len(out); j++ {
		err = CheckFinite(out[j], fmt.Sprintf("row %d", rows[j]))
	}
	return out, err
}

// CheckFinite fails on a NaN or infinite logit, saying it came after where.
func CheckFinite(logits []float32, where string) error {
	for id, v := range logits {
		if v != v || math.IsInf(float64(v), 0) {
			return fmt.Errorf("the model gave token %d the logit %v after %s: its weights or config are not finite (NaN or infinite weights in model.safetensors?)", id, v, where)
		}
	}
	return nil
}

// Usage is what the sessions of a Timed model spent.
type Usage struct {
	Time    time.Duration // in Prefill, Step and Truncate
	Steps   int           // Step calls
	Stepped int           // rows listed in them
}

// Timed returns m with the time and number of its sessions' calls added to
// *u, so that a benchmark can tell the model's share of the wall time.
// Sessions of one Timed model must not run concurrently.
func Timed(m Model, u *Usage) Model { return timedModel{m, u} }

type timedModel struct {
	Model
	u *Usage
}

func (m timedModel) NewSession(rows int) (Session, error) {
	s, err := m.Model.NewSession(rows)
	if err != nil {
		return nil, err
	}
	return timedSession{s, m.u}, nil
}

type timedSession struct {
	Session
	u *Usage
}

func (s timedSession) Prefill(prompt []int) ([]float32, error) {
	defer s.since(time.Now())
	return s.Session.Prefill(prompt)
}

func (s timedSession) Step(tokens, rows []int) ([][]float32, error) {
	defer s.since(time.Now())
	s.u.Steps++
	s.u.Stepped += len(rows)
	return s.Session.Step(tokens, rows)
}

func (s timedSession) Truncate(row, length int) error {
	defer s.since(time.Now())
	return s.Session.Truncate(row, length)
}

func (s timedSession) since(t0 time.Time) { s.u.Time += time.Since(t0) }

// WithContext returns m whose sessions fail with ctx's error once ctx is
// done, so that any sampler — a built-in or a user's — stops at its next
// model call, one decoding step, after a cancellation: samplers call the
// model at every step and need no context of their own. A context that can
// never be done leaves m as it is.
func WithContext(ctx context.Context, m Model) Model {
	if ctx.Done() == nil {
		return m
	}
	return ctxModel{m, ctx}
}

type ctxModel struct {
	Model
	ctx context.Context
}

func (m ctxModel) NewSession(rows int) (Session, error) {
	if err := m.ctx.Err(); err != nil {
		return nil, err
	}
	s, err := m.Model.NewSession(rows)
	if err != nil {
		return nil, err
	}
	return ctxSession{s, m.ctx}, nil
}

type ctxSession struct {
	Session
	ctx context.Context
}

func (s ctxSession) Prefill(prompt []int) ([]float32, error) {
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	return s.Session.Prefill(prompt)
}

func (s ctxSession) Step(tokens, rows []int) ([][]float32, error) {
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	return s.Session.Step(tokens, rows)
}
