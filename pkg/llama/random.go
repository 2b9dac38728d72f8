package llama

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/hf"
)

// RandomWeights returns weights for every tensor of cfg (Config.WeightNames), drawn from seed: embeddings
// N(0, 0.25), Linear weights N(0, 1/in) (so activations keep their scale through the layers), norm weights
// 1 + N(0, 0.01) and biases N(0, 0.25), scaled as testdata/make_reference.py scales its checkpoints. Random
// models have the shapes, cost and numerics of trained ones, not their outputs: tests and benchmarks use them.
func RandomWeights(cfg Config, seed uint64) map[string][]float32 {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	w := make(map[string][]float32)
	for _, s := range cfg.weightSpecs() {
		data := make([]float32, s.size())
		scale, offset := 0.0, 0.0
		switch {
		case s.layer >= 0 && (s.slot == wQBias || s.slot == wKBias || s.slot == wVBias):
			scale = 0.5
		case len(s.shape) == 1: // norms
			scale, offset = 0.1, 1
		case s.name == embedName:
			scale = 0.5
		default: // Linear, [out, in]
			scale = 1 / math.Sqrt(float64(s.shape[1]))
		}
		for i := range data {
			data[i] = float32(offset + scale*rng.NormFloat64())
		}
		w[s.name] = data
	}
	return w
}

// WriteCheckpoint writes a model directory: cfg as config.json and weights (keyed by Config.WeightNames,
// float32, shaped as Config.WeightShape says) as model.safetensors in dtype hf.F32 or hf.BF16 (rounded to
// nearest even). Load reads it back.
func WriteCheckpoint(dir string, cfg Config, weights map[string][]float32, dtype hf.DType) error {
	conv := hf.Float32Tensor
	switch dtype {
	case hf.F32:
	case hf.BF16:
		conv = hf.BFloat16Tensor
	default:
		return fmt.Errorf("llama: WriteCheckpoint: dtype %s (want F32 or BF16)", dtype)
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	var ts []hf.Tensor
	for _, s := range cfg.weightSpecs() {
		data, ok := weights[s.name]
		if !ok || len(data) != s.size() {
			return fmt.Errorf("llama: WriteCheckpoint: tensor %q: %d values, want shape %v", s.name, len(data), s.shape)
		}
		ts = append(ts, conv(s.name, s.shape, data))
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), append(data, '\n'), 0o644); err != nil {
		return err
	}
	return hf.WriteSafetensors(filepath.Join(dir, hf.SafetensorsFile), ts, map[string]string{"format": "pt"})
}
