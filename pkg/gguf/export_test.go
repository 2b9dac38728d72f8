package gguf

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/hf"
	"github.com/gasplab/gasp/pkg/llama"
)

// tinyConfig is a small model of the family; its vocabulary is tinyTokenizer's plus padding.
func tinyConfig(family string) llama.Config {
	cfg := llama.Config{
		ModelType: family, HiddenSize: 16, NumHiddenLayers: 2, NumAttentionHeads: 4, NumKeyValueHeads: 2,
		HeadDim: 4, IntermediateSize: 24, RMSNormEps: 1e-5, RopeTheta: 500000, TieWordEmbeddings: true,
		VocabSize: 12, MaxPositionEmbeddings: 256, BOSTokenID: 8, EOSTokenIDs: []int{9},
	}
	if family == llama.FamilyLlama {
		cfg.HeadDim, cfg.NumAttentionHeads, cfg.NumKeyValueHeads = 8, 2, 1
		cfg.RopeScaling = &llama.RopeScaling{RopeType: "llama3", Factor: 32, LowFreqFactor: 1, HighFreqFactor: 4,
			OriginalMaxPositionEmbeddings: 64}
	}
	return cfg
}

// tinyTokenizer has 8 BPE tokens, 2 merges (one of each spelling) and 2 added tokens (ids 8 and 9).
const tinyTokenizer = `{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4, "Ġ": 5, "d": 6, "e": 7},
  "merges": ["a b", ["ab", "c"]]},
  "added_tokens": [{"id": 8, "content": "<s>", "special": true}, {"id": 9, "content": "<u>", "special": false}]}`

func writeModel(t *testing.T, cfg llama.Config, dtype hf.DType, tokenizer string) string {
	t.Helper()
	dir := t.TempDir()
	if err := llama.WriteCheckpoint(dir, cfg, llama.RandomWeights(cfg, 3), dtype); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(tokenizer), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tensorData returns the named tensor's bytes in a GGUF file.
func tensorData(t *testing.T, path string, f *File, name string) (TensorInfo, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range f.Tensors {
		if ti.Name == name {
			size := Tensor{Type: ti.Type, Dims: ti.Dims}.Size()
			start := f.DataOffset + ti.Offset
			return ti, data[start : start+size]
		}
	}
	t.Fatalf("%s has no tensor %q", path, name)
	return TensorInfo{}, nil
}

func floats(b []byte, typ TensorType) []float64 {
	var out []float64
	if typ == BF16 {
		for i := 0; i < len(b); i += 2 {
			out = append(out, float64(hf.BFloat16ToFloat32(binary.LittleEndian.Uint16(b[i:]))))
		}
		return out
	}
	for i := 0; i < len(b); i += 4 {
		out = append(out, float64(math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))))
	}
	return out
}

// The exported Llama q projection, rotated llama.cpp's way (adjacent pairs), gives the same query as the
// checkpoint's, rotated transformers' way (rotate_half), element for element: the permutation is the one
// that makes the two rotations agree. Checked at positions far enough for the llama3 scaling to matter,
// with the scaled frequencies computed from rope_freqs as llama.cpp does (f_i / factor_i).
func TestExportLlamaRotation(t *testing.T) {
	cfg := tinyConfig(llama.FamilyLlama)
	dir := writeModel(t, cfg, hf.F32, tinyTokenizer)
	out := filepath.Join(t.TempDir(), "m.gguf")
	if err := Export(dir, out, F32); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	ckpt, err := hf.OpenCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ckpt.Close()
	hfQ, err := ckpt.Float32("model.layers.1.self_attn.q_proj.weight")
	if err != nil {
		t.Fatal(err)
	}
	ti, b := tensorData(t, out, f, "blk.1.attn_q.weight")
	if want := []int64{16, 16}; ti.Dims[0] != want[0] || ti.Dims[1] != want[1] {
		t.Fatalf("attn_q dims %v, want %v", ti.Dims, want)
	}
	ggQ := floats(b, ti.Type)
	_, fb := tensorData(t, out, f, "rope_freqs.weight")
	factors := floats(fb, F32)
	H, hd, heads := cfg.HiddenSize, cfg.HeadDim, cfg.NumAttentionHeads
	x := make([]float64, H)
	for i := range x {
		x[i] = math.Sin(float64(3*i + 1))
	}
	matVec := func(w []float64) []float64 {
		y := make([]float64, len(w)/H)
		for r := range y {
			for c := range H {
				y[r] += w[r*H+c] * x[c]
			}
		}
		return y
	}
	hfW := make([]float64, len(hfQ))
	for i, v := range hfQ {
		hfW[i] = float64(v)
	}
	qHF, qGG := matVec(hfW), matVec(ggQ)
	scaled := cfg.InvFreq()
	for _, pos := range []int{0, 5, 300, 5000} {
		for h := range heads {
			for j := range hd / 2 {
				base := 1 / math.Pow(cfg.RopeTheta, float64(2*j)/float64(hd))
				// transformers: pairs (j, j+hd/2) with the scaled frequency.
				a := float64(pos) * scaled[j]
				x0, x1 := qHF[h*hd+j], qHF[h*hd+j+hd/2]
				wantA, wantB := x0*math.Cos(a)-x1*math.Sin(a), x1*math.Cos(a)+x0*math.Sin(a)
				// llama.cpp: pairs (2j, 2j+1) with the base frequency divided by rope_freqs.
				g := float64(pos) * base / factors[j]
				y0, y1 := qGG[h*hd+2*j], qGG[h*hd+2*j+1]
				gotA, gotB := y0*math.Cos(g)-y1*math.Sin(g), y1*math.Cos(g)+y0*math.Sin(g)
				if math.Abs(gotA-wantA) > 1e-4 || math.Abs(gotB-wantB) > 1e-4 {
					t.Fatalf("pos %d head %d pair %d: llama.cpp's rotation gives (%g, %g), transformers' (%g, %g)", pos, h, j, gotA, gotB, wantA, wantB)
				}
			}
		}
	}
	if factors[0] != 1 || factors[len(factors)-1] != 32 {
		t.Errorf("rope_freqs %v: want 1 for the highest frequency and the factor 32 for the lowest", factors)
	}
}

// The metadata carries the shape, rope and tokenizer llama.cpp reads; a tied model has no output tensor;
// Qwen2 keeps its q/k weights as they are, has its biases, and every 1-D tensor stays F32 in a BF16 file.
func TestExportMetadata(t *testing.T) {
	for _, family := range []string{llama.FamilyLlama, llama.FamilyQwen2} {
		cfg := tinyConfig(family)
		dir := writeModel(t, cfg, hf.F32, tinyTokenizer)
		out := filepath.Join(t.TempDir(), "m.gguf")
		if err := Export(dir, out, BF16); err != nil {
			t.Fatal(err)
		}
		f, err := ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		arch := map[string]string{llama.FamilyLlama: "llama", llama.FamilyQwen2: "qwen2"}[family]
		want := map[string]any{
			"general.architecture":                     arch,
			"general.file_type":                        uint32(32),
			arch + ".block_count":                      uint32(2),
			arch + ".attention.head_count_kv":          uint32(cfg.NumKeyValueHeads),
			arch + ".rope.dimension_count":             uint32(cfg.HeadDim),
			arch + ".rope.freq_base":                   float32(500000),
			"tokenizer.ggml.model":                     "gpt2",
			"tokenizer.ggml.bos_token_id":              uint32(8),
			"tokenizer.ggml.eos_token_id":              uint32(9),
			"tokenizer.ggml.merges":                    []string{"a b", "ab c"},
			"tokenizer.ggml.token_type":                []int32{1, 1, 1, 1, 1, 1, 1, 1, 3, 4, 5, 5},
			arch + ".attention.layer_norm_rms_epsilon": float32(1e-5),
		}
		for k, v := range want {
			got, ok := f.Value(k)
			if !ok || !equalValue(got, v) {
				t.Errorf("%s: %s = %v, want %v", family, k, got, v)
			}
		}
		toks, _ := f.Value("tokenizer.ggml.tokens")
		if s := toks.([]string); len(s) != 12 || s[5] != "Ġ" || s[8] != "<s>" || s[11] != "[PAD11]" {
			t.Errorf("%s: tokens %q", family, s)
		}
		names := map[string]TensorType{}
		for _, ti := range f.Tensors {
			names[ti.Name] = ti.Type
			if len(ti.Dims) == 1 && ti.Type != F32 {
				t.Errorf("%s: 1-D tensor %s is %s, want F32", family, ti.Name, ti.Type)
			}
		}
		if _, ok := names["output.weight"]; ok {
			t.Errorf("%s: tied model has output.weight", family)
		}
		if names["token_embd.weight"] != BF16 || names["blk.1.ffn_down.weight"] != BF16 {
			t.Errorf("%s: matrices not BF16: %v", family, names)
		}
		_, hasBias := names["blk.0.attn_q.bias"]
		_, hasFreqs := names["rope_freqs.weight"]
		if hasBias != (family == llama.FamilyQwen2) || hasFreqs != (family == llama.FamilyLlama) {
			t.Errorf("%s: q bias %v, rope_freqs %v", family, hasBias, hasFreqs)
		}
		if family == llama.FamilyQwen2 {
			checkUnpermuted(t, dir, out, f)
		}
	}
}

func equalValue(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// checkUnpermuted checks that Qwen2's q projection is exported as stored, rounded to bfloat16.
func checkUnpermuted(t *testing.T, dir, out string, f *File) {
	ckpt, err := hf.OpenCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ckpt.Close()
	want, err := ckpt.BFloat16("model.layers.0.self_attn.q_proj.weight")
	if err != nil {
		t.Fatal(err)
	}
	_, b := tensorData(t, out, f, "blk.0.attn_q.weight")
	for i, w := range want {
		if got := binary.LittleEndian.Uint16(b[2*i:]); got != w {
			t.Fatalf("qwen2 attn_q element %d: %#x, want %#x", i, got, w)
		}
	}
}

func TestExportErrors(t *testing.T) {
	cfg := tinyConfig(llama.FamilyLlama)
	big := strings.Replace(tinyTokenizer, `"e": 7`, `"e": 12`, 1)
	dir := writeModel(t, cfg, hf.F32, big)
	err := Export(dir, filepath.Join(t.TempDir(), "m.gguf"), F32)
	if err == nil || !strings.Contains(err.Error(), `token "e" has id 12 outside the model's vocab_size 12`) || !strings.Contains(err.Error(), "tokenizer.json") {
		t.Errorf("token beyond vocab_size: got %v", err)
	}
	q3 := tinyConfig(llama.FamilyQwen3)
	dir = writeModel(t, q3, hf.F32, tinyTokenizer)
	if err := Export(dir, filepath.Join(t.TempDir(), "m.gguf"), F32); err == nil || !strings.Contains(err.Error(), `model_type "qwen3"`) {
		t.Errorf("qwen3: got %v", err)
	}
	if err := Export(dir, filepath.Join(t.TempDir(), "m.gguf"), F16); err == nil || !strings.Contains(err.Error(), "F16") {
		t.Errorf("F16: got %v", err)
	}
}
