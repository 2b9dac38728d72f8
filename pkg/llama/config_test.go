package llama

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/hf"
)

// llama31Config returns the config.json of Llama-3.1-8B-Instruct (testdata/configs), in the form of
// transformers 4 or, with v5, as transformers 5 writes it (save_pretrained): rope_theta inside
// rope_parameters, and dtype instead of torch_dtype.
func llama31Config(t *testing.T, v5 bool) []byte {
	t.Helper()
	name := "llama-3.1-8b-instruct.json"
	if v5 {
		name = "llama-3.1-8b-instruct-v5.json"
	}
	data, err := os.ReadFile(filepath.Join("testdata", "configs", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseLlama31Config(t *testing.T) {
	cfg, err := ParseConfig(llama31Config(t, false))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		ModelType:  FamilyLlama,
		HiddenSize: 4096, NumHiddenLayers: 32, NumAttentionHeads: 32, NumKeyValueHeads: 8, HeadDim: 128,
		IntermediateSize: 14336, RMSNormEps: 1e-5, RopeTheta: 500000,
		RopeScaling:           &RopeScaling{RopeType: "llama3", Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositionEmbeddings: 8192},
		VocabSize:             128256,
		MaxPositionEmbeddings: 131072, BOSTokenID: 128000, EOSTokenIDs: []int{128001, 128008, 128009},
		TorchDType: "bfloat16",
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("got  %+v\nwant %+v", cfg, want)
	}
	if n := cfg.NumParams(); n != 8_030_261_248 {
		t.Errorf("NumParams = %d, want 8030261248", n)
	}
	// Round trip through MarshalJSON / UnmarshalJSON.
	data, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var back Config
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, cfg) {
		t.Errorf("round trip: got %+v", back)
	}
}

// TestInvFreqLlama31 checks the three regimes of the llama3 rope scaling with the Llama-3.1 parameters.
func TestInvFreqLlama31(t *testing.T) {
	cfg, err := ParseConfig(llama31Config(t, false))
	if err != nil {
		t.Fatal(err)
	}
	f := cfg.InvFreq()
	if len(f) != 64 {
		t.Fatalf("%d frequencies, want 64", len(f))
	}
	var high, low, mid int
	for i, fi := range f {
		base := math.Pow(500000, -float64(2*i)/128)
		wavelen := 2 * math.Pi / base
		switch {
		case wavelen < 8192/4.0:
			high++
			if fi != base {
				t.Errorf("f[%d] = %g, want unscaled %g", i, fi, base)
			}
		case wavelen > 8192:
			low++
			if math.Abs(fi-base/8) > 1e-15*base {
				t.Errorf("f[%d] = %g, want %g/8", i, fi, base)
			}
		default:
			mid++
			s := (8192/wavelen - 1) / 3
			if w := (1-s)*base/8 + s*base; math.Abs(fi-w) > 1e-12*w {
				t.Errorf("f[%d] = %g, want smoothed %g", i, fi, w)
			}
			if !(fi > base/8 && fi < base) {
				t.Errorf("f[%d] = %g is not between %g and %g", i, fi, base/8, base)
			}
		}
	}
	if high == 0 || low == 0 || mid == 0 {
		t.Errorf("regimes: %d high, %d medium, %d low frequencies; want all three", high, mid, low)
	}
}

func TestParseConfigDefaults(t *testing.T) {
	cfg, err := ParseConfig([]byte(`{"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4,
		"intermediate_size": 128, "vocab_size": 10, "eos_token_id": 2, "bos_token_id": null, "rope_scaling": null}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.NumKeyValueHeads != 4 || cfg.HeadDim != 16 || cfg.RMSNormEps != 1e-6 || cfg.RopeTheta != 10000 ||
		cfg.MaxPositionEmbeddings != 2048 || cfg.BOSTokenID != -1 || !reflect.DeepEqual(cfg.EOSTokenIDs, []int{2}) ||
		cfg.RopeScaling != nil || cfg.TieWordEmbeddings {
		t.Errorf("defaults: %+v", cfg)
	}
	// The older rope_scaling key "type".
	cfg, err = ParseConfig([]byte(`{"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4,
		"intermediate_size": 128, "vocab_size": 10, "rope_scaling": {"type": "linear", "factor": 2}}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RopeScaling == nil || cfg.RopeScaling.RopeType != "linear" || cfg.InvFreq()[1] != math.Pow(10000, -2.0/16)/2 {
		t.Errorf("linear scaling: %+v", cfg.RopeScaling)
	}
}

// TestParseConfigTransformers5 checks that both forms of config.json give the same configuration, and that
// a file holding both forms, agreeing, does too.
func TestParseConfigTransformers5(t *testing.T) {
	v4, err := ParseConfig(llama31Config(t, false))
	if err != nil {
		t.Fatal(err)
	}
	v5, err := ParseConfig(llama31Config(t, true))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(v4, v5) {
		t.Errorf("transformers 5 form: got  %+v\nwant %+v", v5, v4)
	}
	var both map[string]any
	if err := json.Unmarshal(llama31Config(t, true), &both); err != nil {
		t.Fatal(err)
	}
	both["rope_theta"] = 500000.0
	both["torch_dtype"] = "bfloat16"
	both["rope_scaling"] = map[string]any{"rope_type": "llama3", "factor": 8, "low_freq_factor": 1,
		"high_freq_factor": 4, "original_max_position_embeddings": 8192}
	data, _ := json.Marshal(both)
	got, err := ParseConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, v4) {
		t.Errorf("both forms: got  %+v\nwant %+v", got, v4)
	}
	// "default" in rope_parameters: no scaling, the theta given.
	cfg, err := ParseConfig([]byte(`{"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4,
		"intermediate_size": 128, "vocab_size": 10, "rope_parameters": {"rope_type": "default", "rope_theta": 250000}}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RopeTheta != 250000 || cfg.InvFreq()[1] != math.Pow(250000, -2.0/16) {
		t.Errorf("default rope_parameters: theta %g, inv freq %v", cfg.RopeTheta, cfg.InvFreq()[:2])
	}
}

func TestParseConfigErrors(t *testing.T) {
	base := map[string]any{
		"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2,
		"intermediate_size": 128, "vocab_size": 10,
	}
	for _, tc := range []struct {
		set  map[string]any
		want string
	}{
		{map[string]any{"hidden_size": nil}, "missing hidden_size"},
		{map[string]any{"num_hidden_layers": 0}, "num_hidden_layers must be positive"},
		{map[string]any{"num_key_value_heads": 3}, "not a multiple of num_key_value_heads 3"},
		{map[string]any{"hidden_size": 66}, "hidden_size 66 is not a multiple of num_attention_heads 4"},
		{map[string]any{"head_dim": 7}, "head_dim must be even"},
		{map[string]any{"model_type": "mistral"}, `model_type "mistral" is not supported`},
		{map[string]any{"hidden_act": "gelu"}, `hidden_act "gelu" is not supported`},
		{map[string]any{"attention_bias": true}, "attention_bias"},
		{map[string]any{"eos_token_id": "x"}, "eos_token_id: want an integer or a list"},
		{map[string]any{"eos_token_id": []int{1, 10}}, "eos_token_id 10 is outside"},
		{map[string]any{"rms_norm_eps": 0}, "rms_norm_eps must be positive"},
		{map[string]any{"rope_scaling": map[string]any{"rope_type": "yarn", "factor": 4}}, `rope_type "yarn" is not supported`},
		{map[string]any{"rope_scaling": map[string]any{"rope_type": "llama3", "factor": 8, "low_freq_factor": 4, "high_freq_factor": 1, "original_max_position_embeddings": 8192}}, "low_freq_factor < high_freq_factor"},
		{map[string]any{"rope_scaling": map[string]any{"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4}}, "original_max_position_embeddings must be positive"},
		{map[string]any{"rope_parameters": map[string]any{"rope_type": "yarn", "rope_theta": 1e4, "factor": 4}}, `rope_type "yarn" is not supported`},
		{map[string]any{"rope_parameters": map[string]any{"rope_type": "dynamic", "rope_theta": 1e4}}, `rope_type "dynamic" is not supported`},
		{map[string]any{"rope_parameters": map[string]any{"rope_theta": 1e4}}, "rope_parameters: rope_type is missing"},
		{map[string]any{"rope_parameters": map[string]any{"rope_type": "default", "rope_theta": 1e4}, "rope_theta": 5e5}, "disagree"},
		{map[string]any{"rope_parameters": map[string]any{"rope_type": "linear", "factor": 2}, "rope_scaling": map[string]any{"rope_type": "linear", "factor": 4}}, "disagree"},
		{map[string]any{"rope_scaling": map[string]any{"rope_type": "linear", "factor": 4, "rope_theta": 1e4}}, "rope_theta belongs"},
		{map[string]any{"dtype": "float32", "torch_dtype": "bfloat16"}, "disagree"},
	} {
		data := configWith(base, tc.set)
		_, err := ParseConfig(data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one containing %q", tc.set, err, tc.want)
		}
	}
	if _, err := ParseConfig([]byte(`{"hidden_size": "x"}`)); err == nil {
		t.Error("no error for a string hidden_size")
	}
}

// writeCheckpoint writes cfg and the given tensors as a model directory.
func writeCheckpoint(t *testing.T, cfg Config, tensors []hf.Tensor) string {
	t.Helper()
	dir := t.TempDir()
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := hf.WriteSafetensors(filepath.Join(dir, hf.SafetensorsFile), tensors, map[string]string{"format": "pt"}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func checkpointTensors(cfg Config, w map[string][]float32, conv func(string, []int, []float32) hf.Tensor) []hf.Tensor {
	var ts []hf.Tensor
	for _, s := range cfg.weightSpecs() {
		ts = append(ts, conv(s.name, s.shape, w[s.name]))
	}
	return ts
}

// TestLoadMatchesNew: a checkpoint written to disk loads to the same model as New, in float32 and in
// bfloat16 (converted to float32 on load).
func TestLoadMatchesNew(t *testing.T) {
	cfg := smallConfig()
	w := randomWeights(cfg, 1)
	ids := randomIDs(12, cfg.VocabSize, 9)
	mem := newRandomModel(t, cfg, Options{MaxSeq: 16})
	want := forward(t, mem, ids)
	dir := writeCheckpoint(t, cfg, checkpointTensors(cfg, w, hf.Float32Tensor))
	m, err := Load(dir, Options{MaxSeq: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if !reflect.DeepEqual(m.Config(), cfg) {
		t.Errorf("config: got %+v, want %+v", m.Config(), cfg)
	}
	got := forward(t, m, ids)
	if d := maxAbsDiff(t, got, want); d != 0 {
		t.Errorf("float32 checkpoint: logits differ by %g", d)
	}

	dir = writeCheckpoint(t, cfg, checkpointTensors(cfg, w, hf.BFloat16Tensor))
	mb, err := Load(dir, Options{MaxSeq: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer mb.Close()
	got, err = mb.Forward(ids)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(t, got, want); d == 0 || d > 0.5 {
		t.Errorf("bfloat16 checkpoint: logits differ by %g, want a small nonzero difference", d)
	}
}

func TestLoadErrors(t *testing.T) {
	cfg := smallConfig()
	w := randomWeights(cfg, 1)
	good := checkpointTensors(cfg, w, hf.Float32Tensor)

	// A missing tensor and a wrong shape are both reported, naming the tensors and shapes.
	var ts []hf.Tensor
	for _, x := range good {
		switch x.Name {
		case "model.layers.1.mlp.up_proj.weight":
			continue
		case "model.layers.0.self_attn.k_proj.weight":
			x = hf.Float32Tensor(x.Name, []int{32, 16}, w[x.Name]) // [16, 32] transposed
		}
		ts = append(ts, x)
	}
	dir := writeCheckpoint(t, cfg, ts)
	_, err := Load(dir, Options{})
	for _, want := range []string{
		`tensor "model.layers.1.mlp.up_proj.weight" is missing from the checkpoint`,
		`tensor "model.layers.0.self_attn.k_proj.weight" has shape [32 16], want [16 32]`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want one containing %q", err, want)
		}
	}

	// lm_head is required unless the embeddings are tied; when tied, an lm_head tensor is ignored.
	var noHead []hf.Tensor
	for _, x := range good {
		if x.Name != "lm_head.weight" {
			noHead = append(noHead, x)
		}
	}
	if _, err := Load(writeCheckpoint(t, cfg, noHead), Options{}); err == nil || !strings.Contains(err.Error(), `"lm_head.weight" is missing`) {
		t.Errorf("no lm_head: error %v", err)
	}
	tied := cfg
	tied.TieWordEmbeddings = true
	m, err := Load(writeCheckpoint(t, tied, good), Options{MaxSeq: 8})
	if err != nil {
		t.Errorf("tied with an extra lm_head: %v", err)
	} else {
		m.Close()
	}

	// A truncated file.
	dir = writeCheckpoint(t, cfg, good)
	path := filepath.Join(dir, hf.SafetensorsFile)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, fi.Size()-100); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, Options{}); err == nil {
		t.Error("no error for a truncated checkpoint")
	} else {
		t.Logf("truncated checkpoint: %v", err)
	}

	// No checkpoint, no config.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, Options{}); err == nil || !strings.Contains(err.Error(), "model.safetensors") {
		t.Errorf("no checkpoint: error %v", err)
	}
	if _, err := Load(t.TempDir(), Options{}); err == nil || !strings.Contains(err.Error(), "config.json") {
		t.Errorf("no config: error %v", err)
	}

	// New checks the weights it is given.
	delete(w, "model.norm.weight")
	w["model.embed_tokens.weight"] = w["model.embed_tokens.weight"][:10]
	_, err = New(cfg, w, Options{})
	for _, want := range []string{`tensor "model.norm.weight" is missing`, `tensor "model.embed_tokens.weight" has 10 elements, want shape [97 32]`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New: error %v, want one containing %q", err, want)
		}
	}
}

// TestEstimateMemoryLlama31 checks EstimateMemory against the sizes of Llama-3.1-8B (GPU.md): 16.06 GB of
// bf16 weights, 128 KiB of bf16 cache per row and position.
func TestEstimateMemoryLlama31(t *testing.T) {
	cfg, err := ParseConfig(llama31Config(t, false))
	if err != nil {
		t.Fatal(err)
	}
	mem, err := EstimateMemory(cfg, hf.BF16, 100, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(2*(8_030_261_248-65*4096)) + 4*65*4096; mem.Weights != want {
		t.Errorf("bf16 weights: %d bytes, want %d", mem.Weights, want)
	}
	if want := int64(128<<10) * 100 * 1025; mem.Caches != want {
		t.Errorf("bf16 caches for 100 × 1024: %d bytes, want %d", mem.Caches, want)
	}
	f32, err := EstimateMemory(cfg, hf.F32, 100, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if f32.Caches != 2*mem.Caches || f32.Weights <= 2*mem.Weights-int64(8*65*4096) {
		t.Errorf("f32: %+v vs bf16 %+v", f32, mem)
	}
	if mem.Peak() != mem.Weights+mem.Caches+mem.Temporaries || mem.Temporaries < mem.Caches+100*128256*4 {
		t.Errorf("peak %d, temporaries %d", mem.Peak(), mem.Temporaries)
	}
	if _, err := EstimateMemory(cfg, "", 100, 1024); err == nil {
		t.Error("EstimateMemory took an unresolved dtype")
	}
}

// configWith returns base as config.json with the fields of set given its
// values, a nil value removing the field.
func configWith(base, set map[string]any) []byte {
	m := map[string]any{}
	for k, v := range base {
		m[k] = v
	}
	for k, v := range set {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	data, _ := json.Marshal(m)
	return data
}
