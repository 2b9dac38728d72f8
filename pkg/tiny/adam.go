package tiny

import (
	"fmt"
	"math"

	backends "github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // the graph DSL reads best unqualified
	"github.com/gomlx/gomlx/core/tensors"
)

// Adam's constants (Kingma & Ba 2015, the usual defaults).
const (
	adamBeta1   = 0.9
	adamBeta2   = 0.999
	adamEpsilon = 1e-8
)

// adam trains the weights with Adam. One training step is one graph execution: the weights and both moments
// go in as parameters and come back updated, so the state lives in plain tensors between steps and no
// variable store is needed.
type adam struct {
	exec  *Exec
	nw    int               // number of weight tensors
	state []*tensors.Tensor // weights, then first moments, then second moments
	steps int               // steps taken, for the bias correction
}

func newAdam(backend backends.Backend, w *weights) (*adam, error) {
	nw := len(w.names)
	a := &adam{nw: nw, state: w.tensors()}
	for range 2 {
		for i := range nw {
			a.state = append(a.state, tensors.FromFlatDataAndDimensions(make([]float32, len(w.data[i])), w.shapes[i]...))
		}
	}
	// Inputs: weights, m, v (3·nw), then tokens, targets, mask, lr, the two bias corrections.
	// Outputs: loss, then the new weights, m, v.
	exec, err := NewExec(backend, func(in []*Node) []*Node {
		params, m, v := in[:nw], in[nw:2*nw], in[2*nw:3*nw]
		tokens, targets, mask := in[3*nw], in[3*nw+1], in[3*nw+2]
		lr, corr1, corr2 := in[3*nw+3], in[3*nw+4], in[3*nw+5]
		nll := w.lossGraph(params, tokens, targets, mask)
		loss := Div(nll, MaxScalar(ReduceAllSum(mask), 1))
		grads := Gradient(loss, params...)
		out := make([]*Node, 1+3*nw)
		out[0] = loss
		for i, g := range grads {
			mi := Add(MulScalar(m[i], adamBeta1), MulScalar(g, 1-adamBeta1))
			vi := Add(MulScalar(v[i], adamBeta2), MulScalar(Mul(g, g), 1-adamBeta2))
			mHat := Div(mi, corr1)
			vHat := Div(vi, corr2)
			update := Div(mHat, AddScalar(Sqrt(vHat), adamEpsilon))
			out[1+i] = Sub(params[i], Mul(lr, update))
			out[1+nw+i] = mi
			out[1+2*nw+i] = vi
		}
		return out
	})
	if err != nil {
		return nil, err
	}
	a.exec = exec
	return a, nil
}

// step takes one Adam step at learning rate lr on a batch and returns the batch's mean loss.
func (a *adam) step(lr float64, tokens, targets, mask *tensors.Tensor) (float64, error) {
	a.steps++
	t := float64(a.steps)
	args := make([]any, 0, len(a.state)+6)
	for _, s := range a.state {
		args = append(args, s)
	}
	args = append(args, tokens, targets, mask, tensors.FromScalar(float32(lr)),
		tensors.FromScalar(float32(1-math.Pow(adamBeta1, t))), tensors.FromScalar(float32(1-math.Pow(adamBeta2, t))))
	out, err := a.exec.Exec(args...)
	if err != nil {
		return 0, fmt.Errorf("tiny: training step %d: %w", a.steps, err)
	}
	loss := float64(tensors.MustCopyFlatData[float32](out[0])[0])
	for _, s := range a.state {
		s.FinalizeAll()
	}
	copy(a.state, out[1:])
	return loss, nil
}

// weightsInto copies the current weights into w.
func (a *adam) weightsInto(w *weights) error {
	for i := range a.nw {
		data, err := tensors.CopyFlatData[float32](a.state[i])
		if err != nil {
			return err
		}
		w.data[i] = data
	}
	return nil
}
