package sample

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/lm"
)

// parallelWork is the size (rows × vocabulary) from which a token step's
// distributions are computed on several goroutines: with a real vocabulary
// the softmax and entropies over 128k tokens for 100 rows cost as much as
// the model's step.
const parallelWork = 1 << 16

// dists holds one scratch Dist per worker.
type dists struct{ d []Dist }

func newDists() *dists { return &dists{d: make([]Dist, runtime.GOMAXPROCS(0))} }

// each fills the Dist of logits[k] under allowed[k] and calls f(k, d), for
// every k, on several goroutines when the step is large. f may touch only
// what belongs to item k; d is valid during the call.
func (ds *dists) each(tf lm.Transform, logits [][]float32, allowed []gcd.Bitset, f func(k int, d *Dist)) {
	n := len(logits)
	if n == 0 {
		return
	}
	workers := min(len(ds.d), n)
	if workers == 1 || n*len(logits[0]) < parallelWork {
		d := &ds.d[0]
		for k := range n {
			d.Fill(tf, logits[k], allowed[k])
			f(k, d)
		}
		return
	}
	var (
		wg   sync.WaitGroup
		next atomic.Int64
	)
	for w := range workers {
		d := &ds.d[w]
		wg.Go(func() {
			for {
				k := int(next.Add(1)) - 1
				if k >= n {
					return
				}
				d.Fill(tf, logits[k], allowed[k])
				f(k, d)
			}
		})
	}
	wg.Wait()
}

// drawn is one row's token step.
type drawn struct {
	tok                 int
	logP, logQ, h, rawH float64
	none                bool // nothing could be drawn
}
