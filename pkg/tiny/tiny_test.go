package tiny

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	backends "github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // the graph DSL reads best unqualified
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gasplab/gasp/pkg/llama"
	"github.com/gasplab/gasp/pkg/tokenizer"
)

// TestLogitsMatchLlama checks that the training graph computes what pkg/llama computes from the same weights.
func TestLogitsMatchLlama(t *testing.T) {
	cfg := llama.Config{HiddenSize: 32, NumHiddenLayers: 2, NumAttentionHeads: 4, NumKeyValueHeads: 2, HeadDim: 8,
		IntermediateSize: 48, RMSNormEps: 1e-5, RopeTheta: 10000, TieWordEmbeddings: true, VocabSize: 50,
		MaxPositionEmbeddings: 64, BOSTokenID: -1}
	backend, err := backends.NewWithConfig(llama.BackendConfig("go"))
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Finalize()
	w := newWeights(cfg, rand.New(rand.NewPCG(1, 2)))
	values := w.values()
	// Larger weights than the initialization, so that attention is not uniform.
	for name, v := range values {
		if !slices.Contains([]int{1}, len(mustShape(cfg, name))) {
			for i := range v {
				v[i] *= 20
			}
		}
	}
	w, err = fromWeights(cfg, values)
	if err != nil {
		t.Fatal(err)
	}
	const B, T = 2, 12
	ids := make([]int32, B*T)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range ids {
		ids[i] = int32(r.IntN(cfg.VocabSize))
	}
	nw := len(w.names)
	ex, err := NewExec(backend, func(in []*Node) *Node { return w.logitsGraph(in[:nw], in[nw]) })
	if err != nil {
		t.Fatal(err)
	}
	var args []any
	for _, p := range w.tensors() {
		args = append(args, p)
	}
	out, err := ex.Exec(append(args, tensors.FromFlatDataAndDimensions(ids, B, T))...)
	if err != nil {
		t.Fatal(err)
	}
	got := tensors.MustCopyFlatData[float32](out[0])
	m, err := llama.New(cfg, values, llama.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	maxDiff := 0.0
	for b := range B {
		row := make([]int, T)
		for i := range row {
			row[i] = int(ids[b*T+i])
		}
		want, err := m.Forward(row)
		if err != nil {
			t.Fatal(err)
		}
		for i := range T {
			for v := range cfg.VocabSize {
				maxDiff = max(maxDiff, math.Abs(float64(got[(b*T+i)*cfg.VocabSize+v]-want[i][v])))
			}
		}
	}
	if maxDiff > 1e-3 {
		t.Errorf("training graph and llama.Model.Forward differ by %g", maxDiff)
	}
	t.Logf("max |Δlogit| = %g", maxDiff)
}

func mustShape(cfg llama.Config, name string) []int {
	s, _ := cfg.WeightShape(name)
	return s
}

func smokeOptions() Options {
	sources := DefaultSources("../..")
	for i := range sources {
		sources[i].SamplesPerTask = 3
	}
	return Options{Seed: 7, Sources: sources, VocabSize: 400, Hidden: 32, Layers: 1, Heads: 2, Intermediate: 64,
		MaxPositions: 4096, SeqLen: 32, Batch: 2, Steps: 4, WarmupSteps: 2, HeldOut: 0.34}
}

// TestTrainSmoke trains a very small model for a few steps, twice, and checks that the result is reproducible
// and that pkg/llama loads it and gives the held-out perplexity the trainer reported.
func TestTrainSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	r1, err := Train(smokeOptions())
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Train(smokeOptions())
	if err != nil {
		t.Fatal(err)
	}
	if r1.HeldOutPPL != r2.HeldOutPPL || string(r1.TokenizerJSON) != string(r2.TokenizerJSON) {
		t.Errorf("not reproducible: perplexity %v vs %v", r1.HeldOutPPL, r2.HeldOutPPL)
	}
	for name, v := range r1.Weights {
		if !slices.Equal(v, r2.Weights[name]) {
			t.Errorf("weight %s differs between runs", name)
			break
		}
	}
	if !(r1.HeldOutPPL > 1) || math.IsInf(r1.HeldOutPPL, 0) {
		t.Errorf("perplexity %v", r1.HeldOutPPL)
	}
	dir := t.TempDir()
	if err := r1.Save(dir, nil); err != nil {
		t.Fatal(err)
	}
	ppl, n, err := HeldOutPerplexity(dir, smokeOptions())
	if err != nil {
		t.Fatal(err)
	}
	if n != r1.HeldOutTokens || math.Abs(ppl/r1.HeldOutPPL-1) > 1e-3 {
		t.Errorf("reloaded: perplexity %v over %d tokens, trainer said %v over %d", ppl, n, r1.HeldOutPPL, r1.HeldOutTokens)
	}
	if _, err := tokenizer.Load(filepath.Join(dir, "tokenizer.json")); err != nil {
		t.Error(err)
	}
}
