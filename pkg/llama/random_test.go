package llama

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomWeights returns weights for cfg drawn from a fixed seed, scaled like the reference script's.
func randomWeights(cfg Config, seed uint64) map[string][]float32 {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	w := make(map[string][]float32)
	for _, s := range cfg.weightSpecs() {
		data := make([]float32, s.size())
		switch {
		case len(s.shape) == 1: // norms
			for i := range data {
				data[i] = float32(1 + 0.1*rng.NormFloat64())
			}
		case s.name == "model.embed_tokens.weight":
			for i := range data {
				data[i] = float32(0.5 * rng.NormFloat64())
			}
		default:
			scale := 1 / math.Sqrt(float64(s.shape[1]))
			for i := range data {
				data[i] = float32(scale * rng.NormFloat64())
			}
		}
		w[s.name] = data
	}
	return w
}

// smallConfig is a model like the reference "tiny" one, for tests that need no reference.
func smallConfig() Config {
	return Config{
		HiddenSize:            32,
		NumHiddenLayers:       2,
		NumAttentionHeads:     4,
		NumKeyValueHeads:      2,
		HeadDim:               8,
		IntermediateSize:      64,
		RMSNormEps:            1e-5,
		RopeTheta:             500000,
		RopeScaling:           &RopeScaling{RopeType: "llama3", Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositionEmbeddings: 32},
		VocabSize:             97,
		MaxPositionEmbeddings: 256,
		BOSTokenID:            1,
		EOSTokenIDs:           []int{2},
	}
}

func newRandomModel(t testing.TB, cfg Config, opts Options) *Model {
	t.Helper()
	m, err := New(cfg, randomWeights(cfg, 1), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

// randomIDs returns n token ids below vocab.
func randomIDs(n, vocab int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 7))
	ids := make([]int, n)
	for i := range ids {
		ids[i] = rng.IntN(vocab)
	}
	return ids
}
