package tiny

import (
	"math/rand/v2"
	"testing"

	backends "github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gasplab/gasp/pkg/llama"
)

// benchConfig is the committed model's architecture (see DefaultOptions).
func benchConfig() llama.Config {
	return llama.Config{HiddenSize: 128, NumHiddenLayers: 2, NumAttentionHeads: 4, NumKeyValueHeads: 4, HeadDim: 32,
		IntermediateSize: 256, RMSNormEps: 1e-5, RopeTheta: 10000, TieWordEmbeddings: true, VocabSize: 2048,
		MaxPositionEmbeddings: 16384, BOSTokenID: -1}
}

func benchBatch(cfg llama.Config, B, T int) (toks, tgts, mask *tensors.Tensor) {
	r := rand.New(rand.NewPCG(1, 2))
	a, b, m := make([]int32, B*T), make([]int32, B*T), make([]float32, B*T)
	for i := range a {
		a[i], b[i], m[i] = int32(r.IntN(cfg.VocabSize)), int32(r.IntN(cfg.VocabSize)), 1
	}
	return tensors.FromFlatDataAndDimensions(a, B, T), tensors.FromFlatDataAndDimensions(b, B, T),
		tensors.FromFlatDataAndDimensions(m, B, T)
}

// BenchmarkTrainStep measures one Adam step of the committed model's architecture on a batch of
// DefaultOptions().Batch windows of DefaultOptions().SeqLen tokens.
func BenchmarkTrainStep(b *testing.B) {
	cfg, o := benchConfig(), DefaultOptions()
	backend, err := backends.NewWithConfig(llama.BackendConfig("go"))
	if err != nil {
		b.Fatal(err)
	}
	defer backend.Finalize()
	opt, err := newAdam(backend, newWeights(cfg, rand.New(rand.NewPCG(1, 2))))
	if err != nil {
		b.Fatal(err)
	}
	defer opt.exec.Finalize()
	toks, tgts, mask := benchBatch(cfg, o.Batch, o.SeqLen)
	if _, err := opt.step(1e-3, toks, tgts, mask); err != nil { // compiles
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := opt.step(1e-3, toks, tgts, mask); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*o.Batch*o.SeqLen)/b.Elapsed().Seconds(), "tokens/s")
}
