package llama

import (
	"math/rand/v2"
	"testing"
)

// randomWeights returns weights for cfg drawn from a fixed seed, scaled like the reference script's.
func randomWeights(cfg Config, seed uint64) map[string][]float32 { return RandomWeights(cfg, seed) }

// smallConfig is a model like the reference "tiny" one, for tests that need no reference.
func smallConfig() Config {
	return Config{
		ModelType:             FamilyLlama,
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

// familyConfigs returns smallConfig as a model of each family: Llama, Qwen2 (q, k, v biases) and Qwen3 (q
// and k norms, with a head_dim that is not hidden_size / num_attention_heads).
func familyConfigs() []Config {
	llama, qwen2, qwen3 := smallConfig(), smallConfig(), smallConfig()
	qwen2.ModelType, qwen2.RopeScaling, qwen2.RopeTheta, qwen2.TieWordEmbeddings = FamilyQwen2, nil, 1e6, true
	qwen3.ModelType, qwen3.RopeScaling, qwen3.RopeTheta, qwen3.HeadDim = FamilyQwen3, nil, 1e6, 16
	return []Config{llama, qwen2, qwen3}
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
