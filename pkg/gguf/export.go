package gguf

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/gasplab/gasp/pkg/hf"
	"github.com/gasplab/gasp/pkg/llama"
)

// Token types of tokenizer.ggml.token_type (llama.cpp's llama_token_type).
const (
	tokenNormal      int32 = 1
	tokenControl     int32 = 3
	tokenUserDefined int32 = 4
	tokenUnused      int32 = 5
)

// Export converts the model directory dir (config.json, model.safetensors, tokenizer.json: a Llama or
// Qwen2 checkpoint that gasp loads) into a GGUF file at out whose matrices are of type typ (F32 or BF16;
// BF16 rounds F32 weights to nearest even, as gasp's --dtype bf16 does). Norm weights, biases and the rope
// factors are F32 in both, as llama.cpp's own converter writes them.
//
// What llama.cpp needs and how it differs from the Hugging Face layout:
//   - tensor names: token_embd, blk.N.attn_q, ..., output_norm, output (absent when the embeddings are
//     tied: llama.cpp then uses token_embd);
//   - Llama's q and k projections are permuted per head so that the rotary pairs (i, i+hd/2) of
//     transformers' rotate_half become the adjacent pairs (2i, 2i+1) llama.cpp's Llama rotation uses;
//     Qwen2 runs with the rotate_half ("neox") rotation in llama.cpp, so its weights are kept as they are;
//   - llama3 rope scaling is a tensor rope_freqs of per-frequency divisors f_i / f'_i (Config.InvFreq
//     gives f'_i), linear scaling the rope.scaling metadata;
//   - the tokenizer: tokenizer.json's byte-level BPE vocabulary, merges and added tokens (control when
//     special, else user-defined), padded to vocab_size with unused "[PAD<id>]" entries.
func Export(dir, out string, typ TensorType) error {
	if typ != F32 && typ != BF16 {
		return fmt.Errorf("gguf: export type %s (want F32 or BF16)", typ)
	}
	cfg, err := llama.LoadConfig(dir)
	if err != nil {
		return err
	}
	arch, err := architecture(cfg)
	if err != nil {
		return fmt.Errorf("gguf: %s: %w", filepath.Join(dir, llama.ConfigFile), err)
	}
	tok, err := readTokenizer(filepath.Join(dir, "tokenizer.json"), cfg.VocabSize)
	if err != nil {
		return err
	}
	ckpt, err := hf.OpenCheckpoint(dir)
	if err != nil {
		return err
	}
	defer ckpt.Close()
	for _, name := range cfg.WeightNames() {
		if _, ok := ckpt.Info(name); !ok {
			return fmt.Errorf("gguf: %s: checkpoint has no tensor %q", dir, name)
		}
	}
	kvs := append(modelKVs(cfg, arch, filepath.Base(dir), typ), tok.kvs(cfg, arch)...)
	return WriteFile(out, kvs, tensors(cfg, arch, ckpt, typ))
}

// architecture returns llama.cpp's architecture name for cfg's family.
func architecture(cfg llama.Config) (string, error) {
	switch {
	case cfg.QKNorm():
		return "", fmt.Errorf("model_type %q: GGUF export supports llama and qwen2", cfg.ModelType)
	case cfg.QKVBias():
		return "qwen2", nil
	}
	return "llama", nil
}

// modelKVs returns the general and architecture metadata.
func modelKVs(cfg llama.Config, arch, name string, typ TensorType) []KV {
	fileType := uint32(0) // LLAMA_FTYPE_ALL_F32
	if typ == BF16 {
		fileType = 32 // LLAMA_FTYPE_MOSTLY_BF16
	}
	kvs := []KV{
		{"general.architecture", arch},
		{"general.name", name},
		{"general.file_type", fileType},
		{arch + ".vocab_size", uint32(cfg.VocabSize)},
		{arch + ".context_length", uint32(cfg.MaxPositionEmbeddings)},
		{arch + ".embedding_length", uint32(cfg.HiddenSize)},
		{arch + ".block_count", uint32(cfg.NumHiddenLayers)},
		{arch + ".feed_forward_length", uint32(cfg.IntermediateSize)},
		{arch + ".attention.head_count", uint32(cfg.NumAttentionHeads)},
		{arch + ".attention.head_count_kv", uint32(cfg.NumKeyValueHeads)},
		{arch + ".attention.key_length", uint32(cfg.HeadDim)},
		{arch + ".attention.value_length", uint32(cfg.HeadDim)},
		{arch + ".attention.layer_norm_rms_epsilon", float32(cfg.RMSNormEps)},
		{arch + ".rope.freq_base", float32(cfg.RopeTheta)},
		{arch + ".rope.dimension_count", uint32(cfg.HeadDim)},
	}
	if s := cfg.RopeScaling; s != nil && s.RopeType == "linear" {
		kvs = append(kvs, KV{arch + ".rope.scaling.type", "linear"}, KV{arch + ".rope.scaling.factor", float32(s.Factor)})
	}
	return kvs
}

// tensors lists the GGUF tensors of cfg, each read from ckpt when written.
func tensors(cfg llama.Config, arch string, ckpt *hf.Checkpoint, typ TensorType) []Tensor {
	var ts []Tensor
	add := func(ggufName, hfName string, permuteHeads int) {
		shape, _ := cfg.WeightShape(hfName)
		t := typ
		if len(shape) == 1 {
			t = F32
		}
		dims := make([]int64, len(shape))
		for i, d := range shape {
			dims[len(shape)-1-i] = int64(d)
		}
		ts = append(ts, Tensor{Name: ggufName, Type: t, Dims: dims, Write: func(w io.Writer) error {
			b, err := tensorBytes(ckpt, hfName, t)
			if err != nil {
				return err
			}
			if permuteHeads > 0 {
				b = permuteRotary(b, permuteHeads, shape[0])
			}
			_, err = w.Write(b)
			return err
		}})
	}
	add("token_embd.weight", "model.embed_tokens.weight", 0)
	if s := cfg.RopeScaling; s != nil && s.RopeType == "llama3" {
		factors := ropeFactors(cfg)
		ts = append(ts, Tensor{Name: "rope_freqs.weight", Type: F32, Dims: []int64{int64(len(factors))},
			Write: func(w io.Writer) error { _, err := w.Write(float32Bytes(factors)); return err }})
	}
	qHeads, kHeads := 0, 0
	if arch == "llama" {
		qHeads, kHeads = cfg.NumAttentionHeads, cfg.NumKeyValueHeads
	}
	for l := range cfg.NumHiddenLayers {
		p, b := fmt.Sprintf("model.layers.%d.", l), fmt.Sprintf("blk.%d.", l)
		add(b+"attn_norm.weight", p+"input_layernorm.weight", 0)
		add(b+"attn_q.weight", p+"self_attn.q_proj.weight", qHeads)
		add(b+"attn_k.weight", p+"self_attn.k_proj.weight", kHeads)
		add(b+"attn_v.weight", p+"self_attn.v_proj.weight", 0)
		if cfg.QKVBias() {
			add(b+"attn_q.bias", p+"self_attn.q_proj.bias", 0)
			add(b+"attn_k.bias", p+"self_attn.k_proj.bias", 0)
			add(b+"attn_v.bias", p+"self_attn.v_proj.bias", 0)
		}
		add(b+"attn_output.weight", p+"self_attn.o_proj.weight", 0)
		add(b+"ffn_norm.weight", p+"post_attention_layernorm.weight", 0)
		add(b+"ffn_gate.weight", p+"mlp.gate_proj.weight", 0)
		add(b+"ffn_up.weight", p+"mlp.up_proj.weight", 0)
		add(b+"ffn_down.weight", p+"mlp.down_proj.weight", 0)
	}
	add("output_norm.weight", "model.norm.weight", 0)
	if !cfg.TieWordEmbeddings {
		add("output.weight", "lm_head.weight", 0)
	}
	return ts
}

// tensorBytes reads a checkpoint tensor as little-endian values of type t (F32 or BF16).
func tensorBytes(ckpt *hf.Checkpoint, name string, t TensorType) ([]byte, error) {
	if info, _ := ckpt.Info(name); (info.DType == hf.F32 && t == F32) || (info.DType == hf.BF16 && t == BF16) {
		return ckpt.Bytes(name) // stored as written: one copy, not two
	}
	if t == BF16 {
		v, err := ckpt.BFloat16(name)
		if err != nil {
			return nil, err
		}
		b := make([]byte, 2*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint16(b[2*i:], x)
		}
		return b, nil
	}
	v, err := ckpt.Float32(name)
	if err != nil {
		return nil, err
	}
	return float32Bytes(v), nil
}

func float32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// permuteRotary reorders the rows of a [heads·hd, in] projection (as bytes, rows of equal length) so that
// within each head the rows hd/2 apart (rotate_half's pairs) become adjacent: new row 2j+s of a head is old
// row s·hd/2 + j. This is the layout llama.cpp's Llama rotation (adjacent pairs) expects.
func permuteRotary(b []byte, heads, rows int) []byte {
	out := make([]byte, len(b))
	rowLen, hd := len(b)/rows, rows/heads
	for h := range heads {
		for j := range hd / 2 {
			for s := range 2 {
				src, dst := h*hd+s*hd/2+j, h*hd+2*j+s
				copy(out[dst*rowLen:(dst+1)*rowLen], b[src*rowLen:(src+1)*rowLen])
			}
		}
	}
	return out
}

// ropeFactors returns llama.cpp's rope_freqs for llama3 scaling: f_i / f'_i for each rotary frequency f_i
// and its scaled value f'_i.
func ropeFactors(cfg llama.Config) []float32 {
	scaled := cfg.InvFreq()
	out := make([]float32, len(scaled))
	for i, fs := range scaled {
		f := 1 / math.Pow(cfg.RopeTheta, float64(2*i)/float64(cfg.HeadDim))
		out[i] = float32(f / fs)
	}
	return out
}

// tokenizer is what a GGUF needs of a tokenizer.json: one token string and type per id, and the merges.
type tokenizer struct {
	tokens []string
	types  []int32
	merges []string
}

// readTokenizer reads a byte-level BPE tokenizer.json and pads its vocabulary to vocabSize ids.
func readTokenizer(path string, vocabSize int) (*tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	var raw struct {
		Model struct {
			Type   string            `json:"type"`
			Vocab  map[string]int    `json:"vocab"`
			Merges []json.RawMessage `json:"merges"`
		} `json:"model"`
		AddedTokens []struct {
			ID      int    `json:"id"`
			Content string `json:"content"`
			Special bool   `json:"special"`
		} `json:"added_tokens"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("gguf: %s: %w", path, err)
	}
	if raw.Model.Type != "BPE" {
		return nil, fmt.Errorf("gguf: %s: model.type %q (want \"BPE\")", path, raw.Model.Type)
	}
	t := &tokenizer{tokens: make([]string, vocabSize), types: make([]int32, vocabSize)}
	set := func(id int, s string, typ int32) error {
		if id < 0 || id >= vocabSize {
			return fmt.Errorf("gguf: %s: token %q has id %d outside the model's vocab_size %d", path, s, id, vocabSize)
		}
		t.tokens[id], t.types[id] = s, typ
		return nil
	}
	for s, id := range raw.Model.Vocab {
		if err := set(id, s, tokenNormal); err != nil {
			return nil, err
		}
	}
	for _, a := range raw.AddedTokens {
		typ := tokenUserDefined
		if a.Special {
			typ = tokenControl
		}
		if err := set(a.ID, a.Content, typ); err != nil {
			return nil, err
		}
	}
	for id := range t.tokens {
		if t.types[id] == 0 {
			t.tokens[id], t.types[id] = fmt.Sprintf("[PAD%d]", id), tokenUnused
		}
	}
	for i, m := range raw.Model.Merges {
		s, err := mergeString(m)
		if err != nil {
			return nil, fmt.Errorf("gguf: %s: merges[%d]: %w", path, i, err)
		}
		t.merges = append(t.merges, s)
	}
	return t, nil
}

// mergeString returns a merge as "left right": tokenizer.json writes either that string or a pair.
func mergeString(m json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(m, &s) == nil {
		if strings.Count(s, " ") != 1 {
			return "", fmt.Errorf("merge %q is not two tokens", s)
		}
		return s, nil
	}
	var pair []string
	if err := json.Unmarshal(m, &pair); err != nil || len(pair) != 2 {
		return "", fmt.Errorf("merge %s is neither \"a b\" nor [\"a\", \"b\"]", m)
	}
	return pair[0] + " " + pair[1], nil
}

// kvs returns the tokenizer metadata.
func (t *tokenizer) kvs(cfg llama.Config, arch string) []KV {
	pre, addBOS := "llama-bpe", true // Llama-3's pre-tokenizer; its chat format starts with BOS
	if arch == "qwen2" {
		pre, addBOS = "qwen2", false
	}
	kvs := []KV{
		{"tokenizer.ggml.model", "gpt2"},
		{"tokenizer.ggml.pre", pre},
		{"tokenizer.ggml.tokens", t.tokens},
		{"tokenizer.ggml.token_type", t.types},
		{"tokenizer.ggml.merges", t.merges},
		{"tokenizer.ggml.add_bos_token", addBOS},
	}
	if cfg.BOSTokenID >= 0 {
		kvs = append(kvs, KV{"tokenizer.ggml.bos_token_id", uint32(cfg.BOSTokenID)})
	}
	if len(cfg.EOSTokenIDs) > 0 {
		kvs = append(kvs, KV{"tokenizer.ggml.eos_token_id", uint32(cfg.EOSTokenIDs[0])})
	}
	return kvs
}
