package llama

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/hf"
)

// TestParseQwenConfigs parses the config.json files of Qwen2.5-0.5B-Instruct and Qwen3-0.6B
// (testdata/configs) and checks the fields, the parameter counts of their model cards, the weights each
// family adds, and the round trip through MarshalJSON.
func TestParseQwenConfigs(t *testing.T) {
	for _, tc := range []struct {
		file    string
		want    Config
		params  int
		weights []string // a layer's weights the family adds to Llama's
	}{
		{"qwen2.5-0.5b-instruct.json", Config{
			ModelType: FamilyQwen2, HiddenSize: 896, NumHiddenLayers: 24, NumAttentionHeads: 14, NumKeyValueHeads: 2,
			HeadDim: 64, IntermediateSize: 4864, RMSNormEps: 1e-6, RopeTheta: 1e6, TieWordEmbeddings: true,
			VocabSize: 151936, MaxPositionEmbeddings: 32768, BOSTokenID: 151643, EOSTokenIDs: []int{151645},
			TorchDType: "bfloat16",
		}, 494_032_768, []string{"self_attn.q_proj.bias", "self_attn.k_proj.bias", "self_attn.v_proj.bias"}},
		{"qwen3-0.6b.json", Config{
			ModelType: FamilyQwen3, HiddenSize: 1024, NumHiddenLayers: 28, NumAttentionHeads: 16, NumKeyValueHeads: 8,
			HeadDim: 128, IntermediateSize: 3072, RMSNormEps: 1e-6, RopeTheta: 1e6, TieWordEmbeddings: true,
			VocabSize: 151936, MaxPositionEmbeddings: 40960, BOSTokenID: 151643, EOSTokenIDs: []int{151645},
			TorchDType: "bfloat16",
		}, 596_049_920, []string{"self_attn.q_norm.weight", "self_attn.k_norm.weight"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "configs", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := ParseConfig(data)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg, tc.want) {
				t.Errorf("got  %+v\nwant %+v", cfg, tc.want)
			}
			if n := cfg.NumParams(); n != tc.params {
				t.Errorf("NumParams = %d, want %d", n, tc.params)
			}
			llama := cfg
			llama.ModelType = FamilyLlama
			var added []string
			for _, name := range cfg.WeightNames() {
				if _, ok := llama.WeightShape(name); !ok && strings.HasPrefix(name, "model.layers.0.") {
					added = append(added, strings.TrimPrefix(name, "model.layers.0."))
				}
			}
			if !reflect.DeepEqual(added, tc.weights) {
				t.Errorf("layer 0 adds %q to Llama's weights, want %q", added, tc.weights)
			}
			out, err := json.Marshal(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var back Config
			if err := json.Unmarshal(out, &back); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !reflect.DeepEqual(back, cfg) {
				t.Errorf("round trip: got %+v\nwant %+v\n%s", back, cfg, out)
			}
		})
	}
}

// TestParseFamilyErrors: each family's config.json with a field the package does not implement, or one
// that contradicts the family, is an error naming the field.
func TestParseFamilyErrors(t *testing.T) {
	qwen2 := map[string]any{
		"architectures": []string{"Qwen2ForCausalLM"}, "model_type": "qwen2", "hidden_size": 64,
		"num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128,
		"vocab_size": 10, "use_sliding_window": false, "sliding_window": 4096,
	}
	qwen3 := map[string]any{
		"architectures": []string{"Qwen3ForCausalLM"}, "model_type": "qwen3", "hidden_size": 64, "head_dim": 32,
		"num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128,
		"vocab_size": 10, "attention_bias": false, "sliding_window": nil,
	}
	for _, base := range []map[string]any{qwen2, qwen3} {
		data, _ := json.Marshal(base)
		if _, err := ParseConfig(data); err != nil {
			t.Fatalf("%s: %v", base["model_type"], err)
		}
	}
	for _, tc := range []struct {
		base map[string]any
		set  map[string]any
		want string
	}{
		{qwen2, map[string]any{"use_sliding_window": true}, "use_sliding_window = true is not supported"},
		{qwen3, map[string]any{"use_sliding_window": true}, "use_sliding_window = true is not supported"},
		{qwen3, map[string]any{"layer_types": []string{"full_attention", "sliding_attention"}}, `layer_types[1] = "sliding_attention"`},
		{qwen2, map[string]any{"attention_bias": false}, "attention_bias = false contradicts model_type \"qwen2\""},
		{qwen3, map[string]any{"attention_bias": true}, "attention_bias = true is not supported for model_type \"qwen3\""},
		{qwen2, map[string]any{"model_type": "qwen2_moe", "architectures": nil}, `model_type "qwen2_moe" is not supported`},
		{qwen3, map[string]any{"num_experts": 128}, "mixture-of-experts"},
		{qwen2, map[string]any{"architectures": []string{"Qwen2ForSequenceClassification"}}, `architectures ["Qwen2ForSequenceClassification"]`},
		{qwen3, map[string]any{"architectures": []string{"Qwen2ForCausalLM"}}, `want ["Qwen3ForCausalLM"] for model_type "qwen3"`},
		{qwen3, map[string]any{"head_dim": nil}, "missing head_dim"},
		{qwen2, map[string]any{"num_key_value_heads": nil}, "missing num_key_value_heads"},
		{qwen2, map[string]any{"rope_scaling": map[string]any{"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 32768}}, `rope_type "yarn" is not supported`},
		{qwen3, map[string]any{"partial_rotary_factor": 0.5}, "partial_rotary_factor 0.5"},
		{qwen3, map[string]any{"hidden_act": "gelu"}, `hidden_act "gelu"`},
		{qwen2, map[string]any{"mlp_bias": true}, "mlp_bias"},
	} {
		data := configWith(tc.base, tc.set)
		_, err := ParseConfig(data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want one containing %q", tc.base["model_type"], tc.set, err, tc.want)
		}
	}
	if _, err := ParseConfig([]byte(`{"architectures": ["LLaMAForCausalLM"], "hidden_size": 64, "num_hidden_layers": 1,
		"num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 10}`)); err != nil {
		t.Errorf("an early Llama conversion's architectures spelling: %v", err)
	}
	if err := (Config{ModelType: "gemma"}).Validate(); err == nil || !strings.Contains(err.Error(), `model_type "gemma"`) {
		t.Errorf("Validate of model_type gemma: %v", err)
	}
}

// TestFamilyCheckpoints: random checkpoints of each family written to disk load to the model New builds
// from the same weights, in both engines; a checkpoint that lacks a weight of its family is refused, naming
// the tensor.
func TestFamilyCheckpoints(t *testing.T) {
	for _, cfg := range familyConfigs() {
		t.Run(cfg.family(), func(t *testing.T) {
			w := randomWeights(cfg, 3)
			dir := t.TempDir()
			if err := WriteCheckpoint(dir, cfg, w, hf.F32); err != nil {
				t.Fatal(err)
			}
			ids := randomIDs(10, cfg.VocabSize, 4)
			for _, backend := range []string{"go", CPUBackend} {
				want := forward(t, newRandomModelWeights(t, cfg, w, Options{MaxSeq: 16, Backend: backend}), ids)
				m, err := Load(dir, Options{MaxSeq: 16, Backend: backend})
				if err != nil {
					t.Fatal(err)
				}
				defer m.Close()
				if !reflect.DeepEqual(m.Config(), cfg) {
					t.Errorf("config: got %+v, want %+v", m.Config(), cfg)
				}
				if d := maxAbsDiff(t, forward(t, m, ids), want); d != 0 {
					t.Errorf("%s: loaded model's logits differ from New's by %g", backend, d)
				}
			}
			last := cfg.layerSpecs(0)
			drop := last[len(last)-1].name // the family's last addition (Llama: down_proj)
			delete(w, drop)
			if err := WriteCheckpoint(t.TempDir(), cfg, w, hf.F32); err == nil || !strings.Contains(err.Error(), drop) {
				t.Errorf("WriteCheckpoint without %s: error %v", drop, err)
			}
			var ts []hf.Tensor
			for _, s := range cfg.weightSpecs() {
				if s.name != drop {
					ts = append(ts, hf.Float32Tensor(s.name, s.shape, w[s.name]))
				}
			}
			bad := writeCheckpoint(t, cfg, ts)
			if _, err := Load(bad, Options{MaxSeq: 16}); err == nil || !strings.Contains(err.Error(), drop+`" is missing`) {
				t.Errorf("Load without %s: error %v", drop, err)
			}
		})
	}
}

func newRandomModelWeights(t *testing.T, cfg Config, w map[string][]float32, opts Options) *Model {
	t.Helper()
	m, err := New(cfg, w, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}
