package llama

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/gasplab/gasp/pkg/hf"
)

// ConfigFile is the name of the model configuration in a model directory.
const ConfigFile = "config.json"

// Config is the architecture of a model of one of the families this package runs, read from a Hugging
// Face config.json: Llama (LlamaConfig), Qwen2/Qwen2.5 (Qwen2Config) or Qwen3 (Qwen3Config). The JSON names
// are those of transformers' configuration classes.
type Config struct {
	ModelType             string       // model_type: "llama" ("" means llama), "qwen2" or "qwen3" (FamilyLlama, ...)
	HiddenSize            int          // hidden_size
	NumHiddenLayers       int          // num_hidden_layers
	NumAttentionHeads     int          // num_attention_heads
	NumKeyValueHeads      int          // num_key_value_heads; absent means NumAttentionHeads (no GQA)
	HeadDim               int          // head_dim; absent means HiddenSize / NumAttentionHeads
	IntermediateSize      int          // intermediate_size
	RMSNormEps            float64      // rms_norm_eps; absent means 1e-6
	RopeTheta             float64      // rope_theta; absent means 10000
	RopeScaling           *RopeScaling // rope_scaling; nil means none
	TieWordEmbeddings     bool         // tie_word_embeddings: the output projection is the embedding matrix
	VocabSize             int          // vocab_size
	MaxPositionEmbeddings int          // max_position_embeddings; absent means 2048
	BOSTokenID            int          // bos_token_id; -1 when absent or null
	EOSTokenIDs           []int        // eos_token_id: one id or a list
	TorchDType            string       // torch_dtype (or dtype): the checkpoint's dtype, informative only
}

// RopeScaling is the rope_scaling entry of a config.json.
//
// Supported types: "llama3" (Llama-3.1 and later), "linear", and "default" (no scaling). For "llama3", with
// f_i = theta^(-2i/head_dim) and wavelen_i = 2π/f_i: f_i is kept when wavelen_i < L/HighFreqFactor, divided by
// Factor when wavelen_i > L/LowFreqFactor, and otherwise interpolated as (1-s)·f_i/Factor + s·f_i with
// s = (L/wavelen_i - LowFreqFactor)/(HighFreqFactor - LowFreqFactor), where L = OriginalMaxPositionEmbeddings.
// For "linear", every f_i is divided by Factor.
type RopeScaling struct {
	RopeType                      string  // rope_type (or the older key "type")
	Factor                        float64 // factor
	LowFreqFactor                 float64 // low_freq_factor
	HighFreqFactor                float64 // high_freq_factor
	OriginalMaxPositionEmbeddings int     // original_max_position_embeddings
}

// The model families this package runs, by config.json's model_type. They share Llama's decoder; Qwen2
// adds biases to the q, k and v projections (not to o), and Qwen3 an RMSNorm over head_dim on each query
// and key head (q_norm, k_norm), before the rotary embedding.
const (
	FamilyLlama = "llama"
	FamilyQwen2 = "qwen2"
	FamilyQwen3 = "qwen3"
)

// families lists the supported model_type values and each one's architectures entry (transformers' class).
var families = [...]struct{ modelType, architecture string }{
	{FamilyLlama, "LlamaForCausalLM"},
	{FamilyQwen2, "Qwen2ForCausalLM"},
	{FamilyQwen3, "Qwen3ForCausalLM"},
}

// family returns the model type, "" read as llama.
func (c Config) family() string {
	if c.ModelType == "" {
		return FamilyLlama
	}
	return c.ModelType
}

// architecture returns the transformers class of the model's family.
func (c Config) architecture() string {
	for _, f := range families {
		if f.modelType == c.family() {
			return f.architecture
		}
	}
	return ""
}

// QKVBias reports whether the q, k and v projections have biases (Qwen2).
func (c Config) QKVBias() bool { return c.family() == FamilyQwen2 }

// QKNorm reports whether each query and key head is RMS-normalized before the rotary embedding (Qwen3).
func (c Config) QKNorm() bool { return c.family() == FamilyQwen3 }

// LoadConfig reads and validates dir/config.json.
func LoadConfig(dir string) (Config, error) {
	var raw rawConfig
	if err := hf.ReadJSON(dir, ConfigFile, &raw); err != nil {
		return Config{}, fmt.Errorf("llama: %w", err)
	}
	cfg, err := raw.config()
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", filepath.Join(dir, ConfigFile), err)
	}
	return cfg, nil
}

// rawConfig mirrors config.json. Pointers tell absent (or null) fields from zero values.
type rawConfig struct {
	ModelType             string          `json:"model_type"`
	Architectures         []string        `json:"architectures"`
	HiddenSize            *int            `json:"hidden_size"`
	NumHiddenLayers       *int            `json:"num_hidden_layers"`
	NumAttentionHeads     *int            `json:"num_attention_heads"`
	NumKeyValueHeads      *int            `json:"num_key_value_heads"`
	HeadDim               *int            `json:"head_dim"`
	IntermediateSize      *int            `json:"intermediate_size"`
	RMSNormEps            *float64        `json:"rms_norm_eps"`
	RopeTheta             *float64        `json:"rope_theta"`
	RopeScaling           json.RawMessage `json:"rope_scaling"`
	RopeParameters        json.RawMessage `json:"rope_parameters"`
	TieWordEmbeddings     *bool           `json:"tie_word_embeddings"`
	VocabSize             *int            `json:"vocab_size"`
	MaxPositionEmbeddings *int            `json:"max_position_embeddings"`
	BOSTokenID            json.RawMessage `json:"bos_token_id"`
	EOSTokenID            json.RawMessage `json:"eos_token_id"`
	TorchDType            string          `json:"torch_dtype"`
	DType                 string          `json:"dtype"`
	HiddenAct             string          `json:"hidden_act"`
	AttentionBias         *bool           `json:"attention_bias"`
	MLPBias               bool            `json:"mlp_bias"`
	UseSlidingWindow      bool            `json:"use_sliding_window"`
	LayerTypes            []string        `json:"layer_types"`
	PartialRotaryFactor   *float64        `json:"partial_rotary_factor"`
	NumExperts            int             `json:"num_experts"`
	NumLocalExperts       int             `json:"num_local_experts"`
}

type rawRopeScaling struct {
	RopeTheta                     *float64 `json:"rope_theta"` // rope_parameters only
	RopeType                      string   `json:"rope_type"`
	Type                          string   `json:"type"`
	Factor                        *float64 `json:"factor"`
	LowFreqFactor                 *float64 `json:"low_freq_factor"`
	HighFreqFactor                *float64 `json:"high_freq_factor"`
	OriginalMaxPositionEmbeddings *int     `json:"original_max_position_embeddings"`
}

// ParseConfig parses and validates the contents of a config.json.
func ParseConfig(data []byte) (Config, error) {
	var raw rawConfig
	if err := json.Unmarshal(data, &raw); err != nil {
		return Config{}, fmt.Errorf("llama: config: %w", err)
	}
	return raw.config()
}

func (raw *rawConfig) config() (Config, error) {
	if err := raw.supported(); err != nil {
		return Config{}, err
	}
	cfg, err := raw.required()
	if err != nil {
		return Config{}, err
	}
	if err := raw.optional(&cfg); err != nil {
		return Config{}, err
	}
	if err := raw.rope(&cfg); err != nil {
		return Config{}, err
	}
	if err := raw.specialTokens(&cfg); err != nil {
		return Config{}, err
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// supported fails on a model type, architecture, activation, bias or other feature this package does not
// implement, naming the config.json field.
func (raw *rawConfig) supported() error {
	cfg := Config{ModelType: raw.ModelType}
	if cfg.architecture() == "" {
		var known []string
		for _, f := range families {
			known = append(known, fmt.Sprintf("%q", f.modelType))
		}
		return fmt.Errorf("llama: config: model_type %q is not supported (supported: %s)", raw.ModelType, strings.Join(known, ", "))
	}
	if len(raw.Architectures) > 0 && (len(raw.Architectures) != 1 || !strings.EqualFold(raw.Architectures[0], cfg.architecture())) {
		// EqualFold: early Llama conversions spell it "LLaMAForCausalLM".
		return fmt.Errorf("llama: config: architectures %q: want [%q] for model_type %q", raw.Architectures, cfg.architecture(), cfg.family())
	}
	switch {
	case raw.HiddenAct != "" && raw.HiddenAct != "silu":
		return fmt.Errorf("llama: config: hidden_act %q is not supported (want \"silu\")", raw.HiddenAct)
	case raw.MLPBias:
		return errors.New("llama: config: mlp_bias = true is not supported")
	case raw.UseSlidingWindow:
		return errors.New("llama: config: use_sliding_window = true is not supported (sliding-window attention is not implemented)")
	case raw.PartialRotaryFactor != nil && *raw.PartialRotaryFactor != 1:
		return fmt.Errorf("llama: config: partial_rotary_factor %g is not supported (only 1: rotary embedding over all of head_dim)", *raw.PartialRotaryFactor)
	case raw.NumExperts > 0 || raw.NumLocalExperts > 0:
		return errors.New("llama: config: num_experts / num_local_experts: mixture-of-experts models are not supported")
	}
	for i, t := range raw.LayerTypes {
		if t != "full_attention" {
			return fmt.Errorf("llama: config: layer_types[%d] = %q is not supported (only \"full_attention\")", i, t)
		}
	}
	return raw.supportedBias(cfg)
}

// supportedBias checks attention_bias against the family: Qwen2 always has q, k and v biases (its
// configuration has no such field; true is accepted), and the others have none.
func (raw *rawConfig) supportedBias(cfg Config) error {
	if raw.AttentionBias == nil {
		return nil
	}
	if cfg.QKVBias() && !*raw.AttentionBias {
		return fmt.Errorf("llama: config: attention_bias = false contradicts model_type %q, whose q, k and v projections always have biases", cfg.family())
	}
	if !cfg.QKVBias() && *raw.AttentionBias {
		return fmt.Errorf("llama: config: attention_bias = true is not supported for model_type %q", cfg.family())
	}
	return nil
}

// required returns the configuration with the fields config.json must have, and the defaults of the others.
func (raw *rawConfig) required() (Config, error) {
	var missing []string
	req := func(name string, p *int) int {
		if p == nil {
			missing = append(missing, name)
			return 0
		}
		return *p
	}
	cfg := Config{
		ModelType:             raw.ModelType,
		HiddenSize:            req("hidden_size", raw.HiddenSize),
		NumHiddenLayers:       req("num_hidden_layers", raw.NumHiddenLayers),
		NumAttentionHeads:     req("num_attention_heads", raw.NumAttentionHeads),
		IntermediateSize:      req("intermediate_size", raw.IntermediateSize),
		VocabSize:             req("vocab_size", raw.VocabSize),
		RMSNormEps:            1e-6,
		RopeTheta:             10000,
		MaxPositionEmbeddings: 2048,
		BOSTokenID:            -1,
		TorchDType:            raw.TorchDType,
	}
	if cfg.family() != FamilyLlama {
		// transformers' Qwen defaults (32 KV heads; Qwen3's head_dim 128) are those of one model; a file
		// without them is more likely broken than meant so.
		cfg.MaxPositionEmbeddings = 32768
		req("num_key_value_heads", raw.NumKeyValueHeads)
		if cfg.family() == FamilyQwen3 {
			req("head_dim", raw.HeadDim)
		}
	}
	if len(missing) > 0 {
		return Config{}, fmt.Errorf("llama: config: missing %s", strings.Join(missing, ", "))
	}
	return cfg, nil
}

// optional sets the fields of cfg that config.json may leave out, where it has them.
func (raw *rawConfig) optional(cfg *Config) error {
	cfg.NumKeyValueHeads = cfg.NumAttentionHeads
	override(&cfg.NumKeyValueHeads, raw.NumKeyValueHeads)
	if raw.HeadDim != nil {
		cfg.HeadDim = *raw.HeadDim
	} else if cfg.NumAttentionHeads > 0 {
		if cfg.HiddenSize%cfg.NumAttentionHeads != 0 {
			return fmt.Errorf("llama: config: hidden_size %d is not a multiple of num_attention_heads %d (and head_dim is not given)",
				cfg.HiddenSize, cfg.NumAttentionHeads)
		}
		cfg.HeadDim = cfg.HiddenSize / cfg.NumAttentionHeads
	}
	override(&cfg.RMSNormEps, raw.RMSNormEps)
	override(&cfg.RopeTheta, raw.RopeTheta)
	override(&cfg.TieWordEmbeddings, raw.TieWordEmbeddings)
	override(&cfg.MaxPositionEmbeddings, raw.MaxPositionEmbeddings)
	if cfg.TorchDType == "" {
		cfg.TorchDType = raw.DType
	} else if raw.DType != "" && raw.DType != cfg.TorchDType {
		return fmt.Errorf("llama: config: dtype %q and torch_dtype %q disagree", raw.DType, cfg.TorchDType)
	}
	return nil
}

// override sets *dst to *p when p is not nil: when config.json has the field.
func override[T any](dst, p *T) {
	if p != nil {
		*dst = *p
	}
}

// specialTokens reads bos_token_id (an integer) and eos_token_id (an integer or a list) into cfg.
func (raw *rawConfig) specialTokens(cfg *Config) error {
	if !isNull(raw.BOSTokenID) {
		if err := json.Unmarshal(raw.BOSTokenID, &cfg.BOSTokenID); err != nil {
			return fmt.Errorf("llama: config: bos_token_id: want an integer: %w", err)
		}
	}
	if !isNull(raw.EOSTokenID) {
		var one int
		if err := json.Unmarshal(raw.EOSTokenID, &one); err == nil {
			cfg.EOSTokenIDs = []int{one}
		} else if err := json.Unmarshal(raw.EOSTokenID, &cfg.EOSTokenIDs); err != nil {
			return fmt.Errorf("llama: config: eos_token_id: want an integer or a list of integers, got %s", raw.EOSTokenID)
		}
	}
	return nil
}

// rope reads the rotary embedding's parameters into cfg. config.json has them in one of two forms:
// rope_theta and rope_scaling (the hub's Llama-3.1 files, transformers 4), or rope_parameters, one object
// holding rope_theta and the scaling (what transformers 5 writes). A file may have both; they must then agree.
func (raw *rawConfig) rope(cfg *Config) error {
	scaling, _, err := parseRope(raw.RopeScaling, "rope_scaling")
	if err != nil {
		return err
	}
	params, theta, err := parseRope(raw.RopeParameters, "rope_parameters")
	if err != nil {
		return err
	}
	if theta != nil {
		if raw.RopeTheta != nil && *raw.RopeTheta != *theta {
			return fmt.Errorf("llama: config: rope_theta %g and rope_parameters.rope_theta %g disagree", *raw.RopeTheta, *theta)
		}
		cfg.RopeTheta = *theta
	}
	switch {
	case params == nil:
		cfg.RopeScaling = scaling
	case scaling != nil && *scaling != *params:
		return fmt.Errorf("llama: config: rope_scaling %+v and rope_parameters %+v disagree", *scaling, *params)
	default:
		cfg.RopeScaling = params
	}
	return nil
}

// parseRope parses a rope_scaling or rope_parameters object (named name in errors); nil when absent or null.
// It also returns rope_parameters' rope_theta, nil when absent.
func parseRope(msg json.RawMessage, name string) (*RopeScaling, *float64, error) {
	if isNull(msg) {
		return nil, nil, nil
	}
	var rs rawRopeScaling
	if err := json.Unmarshal(msg, &rs); err != nil {
		return nil, nil, fmt.Errorf("llama: config: %s: %w", name, err)
	}
	if rs.RopeTheta != nil && name != "rope_parameters" {
		return nil, nil, fmt.Errorf("llama: config: %s: rope_theta belongs at the top level or in rope_parameters", name)
	}
	s := &RopeScaling{RopeType: rs.RopeType}
	if s.RopeType == "" {
		s.RopeType = rs.Type
	}
	if s.RopeType == "" {
		return nil, nil, fmt.Errorf("llama: config: %s: rope_type is missing", name)
	}
	override(&s.Factor, rs.Factor)
	override(&s.LowFreqFactor, rs.LowFreqFactor)
	override(&s.HighFreqFactor, rs.HighFreqFactor)
	override(&s.OriginalMaxPositionEmbeddings, rs.OriginalMaxPositionEmbeddings)
	return s, rs.RopeTheta, nil
}

// MarshalJSON writes the configuration as a Hugging Face config.json of its family (LlamaForCausalLM,
// Qwen2ForCausalLM or Qwen3ForCausalLM).
func (c Config) MarshalJSON() ([]byte, error) {
	type ropeScaling struct {
		RopeType                      string  `json:"rope_type"`
		Factor                        float64 `json:"factor"`
		LowFreqFactor                 float64 `json:"low_freq_factor,omitempty"`
		HighFreqFactor                float64 `json:"high_freq_factor,omitempty"`
		OriginalMaxPositionEmbeddings int     `json:"original_max_position_embeddings,omitempty"`
	}
	out := struct {
		Architectures         []string     `json:"architectures"`
		ModelType             string       `json:"model_type"`
		HiddenSize            int          `json:"hidden_size"`
		NumHiddenLayers       int          `json:"num_hidden_layers"`
		NumAttentionHeads     int          `json:"num_attention_heads"`
		NumKeyValueHeads      int          `json:"num_key_value_heads"`
		HeadDim               int          `json:"head_dim"`
		IntermediateSize      int          `json:"intermediate_size"`
		HiddenAct             string       `json:"hidden_act"`
		RMSNormEps            float64      `json:"rms_norm_eps"`
		RopeTheta             float64      `json:"rope_theta"`
		RopeScaling           *ropeScaling `json:"rope_scaling"`
		TieWordEmbeddings     bool         `json:"tie_word_embeddings"`
		VocabSize             int          `json:"vocab_size"`
		MaxPositionEmbeddings int          `json:"max_position_embeddings"`
		BOSTokenID            *int         `json:"bos_token_id"`
		EOSTokenID            any          `json:"eos_token_id"`
		TorchDType            string       `json:"torch_dtype,omitempty"`
		AttentionBias         *bool        `json:"attention_bias,omitempty"`
		UseSlidingWindow      *bool        `json:"use_sliding_window,omitempty"`
	}{
		Architectures:         []string{c.architecture()},
		ModelType:             c.family(),
		HiddenSize:            c.HiddenSize,
		NumHiddenLayers:       c.NumHiddenLayers,
		NumAttentionHeads:     c.NumAttentionHeads,
		NumKeyValueHeads:      c.NumKeyValueHeads,
		HeadDim:               c.HeadDim,
		IntermediateSize:      c.IntermediateSize,
		HiddenAct:             "silu",
		RMSNormEps:            c.RMSNormEps,
		RopeTheta:             c.RopeTheta,
		TieWordEmbeddings:     c.TieWordEmbeddings,
		VocabSize:             c.VocabSize,
		MaxPositionEmbeddings: c.MaxPositionEmbeddings,
		TorchDType:            c.TorchDType,
	}
	if c.family() != FamilyLlama {
		no, bias := false, c.QKVBias()
		out.UseSlidingWindow = &no
		if !bias { // Qwen2's configuration has no attention_bias: its biases are always there
			out.AttentionBias = &bias
		}
	}
	if s := c.RopeScaling; s != nil {
		out.RopeScaling = &ropeScaling{s.RopeType, s.Factor, s.LowFreqFactor, s.HighFreqFactor, s.OriginalMaxPositionEmbeddings}
	}
	if c.BOSTokenID >= 0 {
		out.BOSTokenID = &c.BOSTokenID
	}
	switch len(c.EOSTokenIDs) {
	case 0:
	case 1:
		out.EOSTokenID = c.EOSTokenIDs[0]
	default:
		out.EOSTokenID = c.EOSTokenIDs
	}
	return json.Marshal(out)
}

// UnmarshalJSON parses a Hugging Face config.json, as ParseConfig does.
func (c *Config) UnmarshalJSON(data []byte) error {
	cfg, err := ParseConfig(data)
	if err != nil {
		return err
	}
	*c = cfg
	return nil
}

func isNull(m json.RawMessage) bool {
	m = bytes.TrimSpace(m)
	return len(m) == 0 || string(m) == "null"
}

// Validate reports the first inconsistency of the configuration.
func (c Config) Validate() error {
	if c.architecture() == "" {
		return fmt.Errorf("llama: config: model_type %q is not supported", c.ModelType)
	}
	pos := []struct {
		name string
		v    int
	}{
		{"hidden_size", c.HiddenSize},
		{"num_hidden_layers", c.NumHiddenLayers},
		{"num_attention_heads", c.NumAttentionHeads},
		{"num_key_value_heads", c.NumKeyValueHeads},
		{"head_dim", c.HeadDim},
		{"intermediate_size", c.IntermediateSize},
		{"vocab_size", c.VocabSize},
		{"max_position_embeddings", c.MaxPositionEmbeddings},
	}
	for _, p := range pos {
		if p.v <= 0 {
			return fmt.Errorf("llama: config: %s must be positive, got %d", p.name, p.v)
		}
	}
	if c.NumAttentionHeads%c.NumKeyValueHeads != 0 {
		return fmt.Errorf("llama: config: num_attention_heads %d is not a multiple of num_key_value_heads %d",
			c.NumAttentionHeads, c.NumKeyValueHeads)
	}
	if c.HeadDim%2 != 0 {
		return fmt.Errorf("llama: config: head_dim must be even for rotary embeddings, got %d", c.HeadDim)
	}
	if !(c.RMSNormEps > 0) || math.IsInf(c.RMSNormEps, 0) {
		return fmt.Errorf("llama: config: rms_norm_eps must be positive, got %g", c.RMSNormEps)
	}
	if !(c.RopeTheta > 1) || math.IsInf(c.RopeTheta, 0) {
		return fmt.Errorf("llama: config: rope_theta must be > 1, got %g", c.RopeTheta)
	}
	if c.BOSTokenID >= c.VocabSize {
		return fmt.Errorf("llama: config: bos_token_id %d is not below vocab_size %d", c.BOSTokenID, c.VocabSize)
	}
	for _, id := range c.EOSTokenIDs {
		if id < 0 || id >= c.VocabSize {
			return fmt.Errorf("llama: config: eos_token_id %d is outside [0, vocab_size %d)", id, c.VocabSize)
		}
	}
	if s := c.RopeScaling; s != nil {
		switch s.RopeType {
		case "default":
		case "linear":
			if !(s.Factor > 0) || math.IsInf(s.Factor, 0) {
				return fmt.Errorf("llama: config: rope_scaling: factor must be positive, got %g", s.Factor)
			}
		case "llama3":
			if !(s.Factor > 0) || math.IsInf(s.Factor, 0) {
				return fmt.Errorf("llama: config: rope_scaling: factor must be positive, got %g", s.Factor)
			}
			if !(s.LowFreqFactor > 0) || !(s.HighFreqFactor > s.LowFreqFactor) || math.IsInf(s.HighFreqFactor, 0) {
				return fmt.Errorf("llama: config: rope_scaling: want 0 < low_freq_factor < high_freq_factor, got %g and %g",
					s.LowFreqFactor, s.HighFreqFactor)
			}
			if s.OriginalMaxPositionEmbeddings <= 0 {
				return fmt.Errorf("llama: config: rope_scaling: original_max_position_embeddings must be positive, got %d",
					s.OriginalMaxPositionEmbeddings)
			}
		case "":
			return errors.New("llama: config: rope_scaling: rope_type is missing")
		default:
			return fmt.Errorf("llama: config: rope_scaling: rope_type %q is not supported (supported: llama3, linear, default)", s.RopeType)
		}
	}
	return nil
}

// NumParams returns the number of parameters of the model (the embedding counted once when tied).
func (c Config) NumParams() int {
	n := 0
	for _, w := range c.weightSpecs() {
		n += w.size()
	}
	return n
}

// InvFreq returns the rotary inverse frequencies f_i, i < HeadDim/2, after rope scaling.
func (c Config) InvFreq() []float64 {
	half := c.HeadDim / 2
	f := make([]float64, half)
	for i := range f {
		f[i] = 1 / math.Pow(c.RopeTheta, float64(2*i)/float64(c.HeadDim))
	}
	s := c.RopeScaling
	if s == nil {
		return f
	}
	switch s.RopeType {
	case "linear":
		for i := range f {
			f[i] /= s.Factor
		}
	case "llama3":
		old := float64(s.OriginalMaxPositionEmbeddings)
		lowWavelen := old / s.LowFreqFactor
		highWavelen := old / s.HighFreqFactor
		for i, fi := range f {
			wavelen := 2 * math.Pi / fi
			switch {
			case wavelen < highWavelen:
			case wavelen > lowWavelen:
				f[i] = fi / s.Factor
			default:
				sm := (old/wavelen - s.LowFreqFactor) / (s.HighFreqFactor - s.LowFreqFactor)
				f[i] = (1-sm)*fi/s.Factor + sm*fi
			}
		}
	}
	return f
}

// weightSpec is one weight tensor of the model: its Hugging Face name and shape, and for a layer's weights
// the layer and the slot (a w* constant) it fills; layer is -1 for the others.
type weightSpec struct {
	name        string
	shape       []int
	layer, slot int
}

func (w weightSpec) size() int {
	n := 1
	for _, d := range w.shape {
		n *= d
	}
	return n
}

// Per-layer weights: the slots of a layer's weights. Every family has wInputNorm through wDown; the
// others are Qwen2's biases and Qwen3's per-head norms.
const (
	wInputNorm = iota
	wQ
	wK
	wV
	wO
	wPostNorm
	wGate
	wUp
	wDown
	wQBias // Qwen2
	wKBias
	wVBias
	wQNorm // Qwen3
	wKNorm
	numLayerWeights
)

// weightSpecs lists the model's weights in a fixed order: the embedding, each layer's weights (layerSpecs),
// the final norm, and lm_head unless the embeddings are tied. Linear weights are [out, in], as in Hugging
// Face checkpoints.
func (c Config) weightSpecs() []weightSpec {
	H, V := c.HiddenSize, c.VocabSize
	specs := []weightSpec{{embedName, []int{V, H}, -1, 0}}
	for l := range c.NumHiddenLayers {
		specs = append(specs, c.layerSpecs(l)...)
	}
	specs = append(specs, weightSpec{normName, []int{H}, -1, 0})
	if !c.TieWordEmbeddings {
		specs = append(specs, weightSpec{"lm_head.weight", []int{V, H}, -1, 0})
	}
	return specs
}

// layerSpecs lists layer l's weights, in the order of their slots.
func (c Config) layerSpecs(l int) []weightSpec {
	H, I, hd := c.HiddenSize, c.IntermediateSize, c.HeadDim
	q, kv := c.NumAttentionHeads*hd, c.NumKeyValueHeads*hd
	p := fmt.Sprintf("model.layers.%d.", l)
	specs := []weightSpec{
		{p + "input_layernorm.weight", []int{H}, l, wInputNorm},
		{p + "self_attn.q_proj.weight", []int{q, H}, l, wQ},
		{p + "self_attn.k_proj.weight", []int{kv, H}, l, wK},
		{p + "self_attn.v_proj.weight", []int{kv, H}, l, wV},
		{p + "self_attn.o_proj.weight", []int{H, q}, l, wO},
		{p + "post_attention_layernorm.weight", []int{H}, l, wPostNorm},
		{p + "mlp.gate_proj.weight", []int{I, H}, l, wGate},
		{p + "mlp.up_proj.weight", []int{I, H}, l, wUp},
		{p + "mlp.down_proj.weight", []int{H, I}, l, wDown},
	}
	if c.QKVBias() {
		specs = append(specs,
			weightSpec{p + "self_attn.q_proj.bias", []int{q}, l, wQBias},
			weightSpec{p + "self_attn.k_proj.bias", []int{kv}, l, wKBias},
			weightSpec{p + "self_attn.v_proj.bias", []int{kv}, l, wVBias})
	}
	if c.QKNorm() {
		specs = append(specs,
			weightSpec{p + "self_attn.q_norm.weight", []int{hd}, l, wQNorm},
			weightSpec{p + "self_attn.k_norm.weight", []int{hd}, l, wKNorm})
	}
	return specs
}

// embedName and normName are the checkpoint names of the token embedding and the final norm.
const (
	embedName = "model.embed_tokens.weight"
	normName  = "model.norm.weight"
)

// linear reports whether the weight is a Linear weight: every matrix but the embedding. Hugging Face stores
// them as [out, in].
func (s weightSpec) linear() bool { return len(s.shape) == 2 && s.name != embedName }

// deviceSpecs are the weights as the graphs take them: weightSpecs, with the Linear weights transposed to
// [in, out] when transposed is true (Model.transposed says when), and for tied embeddings a last copy of the
// embedding as the output head ([H, V] transposed, else [V, H]; the embedding itself stays [V, H] for the row
// lookup).
func (c Config) deviceSpecs(transposed bool) []weightSpec {
	specs := c.weightSpecs()
	for i, s := range specs {
		if transposed && s.linear() {
			specs[i].shape = []int{s.shape[1], s.shape[0]}
		}
	}
	if c.TieWordEmbeddings {
		head := weightSpec{"lm_head.weight (tied)", []int{c.VocabSize, c.HiddenSize}, -1, 0}
		if transposed {
			head = weightSpec{"lm_head.weight (tied, transposed)", []int{c.HiddenSize, c.VocabSize}, -1, 0}
		}
		specs = append(specs, head)
	}
	return specs
}

// WeightNames returns the names of the checkpoint tensors the model reads, in a fixed order.
func (c Config) WeightNames() []string {
	specs := c.weightSpecs()
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.name
	}
	return names
}

// WeightShape returns the expected shape of the named weight, and whether the model reads it.
func (c Config) WeightShape(name string) ([]int, bool) {
	for _, s := range c.weightSpecs() {
		if s.name == name {
			return s.shape, true
		}
	}
	return nil, false
}
