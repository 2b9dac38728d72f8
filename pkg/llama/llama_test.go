package llama

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gasplab/gasp/pkg/hf"
)

// The reference checkpoints and logits in testdata/ are made by testdata/make_reference.py, a numpy
// implementation of Hugging Face's LlamaForCausalLM, Qwen2ForCausalLM and Qwen3ForCausalLM forward passes.
// "bf16" holds bfloat16 weights and a config.json in the transformers 5 form (rope_parameters, dtype):
// loaded in float32 (the default on the pure-Go backend), its logits meet the same tolerance. "qwen2"
// (q, k, v biases, tied embeddings) and "qwen3" (q and k norms, head_dim ≠ hidden_size/heads) hold
// bfloat16 weights too, as the hub's Qwen checkpoints do, with config.json files shaped like theirs.

var referenceCases = []string{"tiny", "tied", "bf16", "qwen2", "qwen3"}

// bf16Cases are the reference cases with bfloat16 weights and a bf16 emulation (logits_bf16.npy).
var bf16Cases = []string{"bf16", "qwen2", "qwen3"}

// loadTestModel loads testdata/name once per test binary and options.
var (
	testModelsMu sync.Mutex
	testModels   = map[string]*Model{}
)

func loadTestModel(t testing.TB, name string, opts Options) *Model {
	t.Helper()
	key := fmt.Sprintf("%s %+v %s", name, opts, os.Getenv("GOMLX_BACKEND"))
	testModelsMu.Lock()
	defer testModelsMu.Unlock()
	if m, ok := testModels[key]; ok {
		return m
	}
	m, err := Load(filepath.Join("testdata", name), opts)
	if err != nil {
		t.Fatal(err)
	}
	testModels[key] = m
	return m
}

func readIDs(t testing.TB, name string) []int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name, "ids.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []int
	if err := json.Unmarshal(data, &ids); err != nil {
		t.Fatal(err)
	}
	return ids
}

// readNpy reads a little-endian float64 .npy file (version 1.0, C order).
func readNpy(t testing.TB, path string) (data []float64, shape []int) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) < 10 || !bytes.Equal(raw[:8], []byte("\x93NUMPY\x01\x00")) {
		t.Fatalf("%s: not a version 1.0 .npy file", path)
	}
	hlen := int(binary.LittleEndian.Uint16(raw[8:10]))
	header := string(raw[10 : 10+hlen])
	if !strings.Contains(header, "'descr': '<f8'") || !strings.Contains(header, "'fortran_order': False") {
		t.Fatalf("%s: unsupported header %q", path, header)
	}
	sm := regexp.MustCompile(`'shape': \(([^)]*)\)`).FindStringSubmatch(header)
	if sm == nil {
		t.Fatalf("%s: no shape in header %q", path, header)
	}
	n := 1
	for _, f := range strings.Split(sm[1], ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		d, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("%s: bad shape %q", path, sm[1])
		}
		shape = append(shape, d)
		n *= d
	}
	body := raw[10+hlen:]
	if len(body) != 8*n {
		t.Fatalf("%s: %d data bytes for shape %v", path, len(body), shape)
	}
	data = make([]float64, n)
	for i := range data {
		data[i] = math.Float64frombits(binary.LittleEndian.Uint64(body[8*i:]))
	}
	return data, shape
}

// maxAbsDiff returns the largest |a[i][j] - b[i][j]|.
func maxAbsDiff(t testing.TB, a, b [][]float32) float64 {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d rows vs %d rows", len(a), len(b))
	}
	d := 0.0
	for i := range a {
		if len(a[i]) != len(b[i]) {
			t.Fatalf("row %d: %d vs %d values", i, len(a[i]), len(b[i]))
		}
		for j := range a[i] {
			d = max(d, math.Abs(float64(a[i][j])-float64(b[i][j])))
		}
	}
	return d
}

const refTolerance = 1e-4

func TestForwardMatchesReference(t *testing.T) {
	for _, name := range referenceCases {
		t.Run(name, func(t *testing.T) {
			m := loadTestModel(t, name, Options{MaxSeq: 64, DType: hf.F32}) // f32 whatever the backend's default
			ids := readIDs(t, name)
			want, shape := readNpy(t, filepath.Join("testdata", name, "logits.npy"))
			V := m.Config().VocabSize
			if len(shape) != 2 || shape[0] != len(ids) || shape[1] != V {
				t.Fatalf("reference shape %v, want [%d %d]", shape, len(ids), V)
			}
			got := forward(t, m, ids)
			maxErr := 0.0
			for i := range ids {
				for j := range V {
					maxErr = max(maxErr, math.Abs(float64(got[i][j])-want[i*V+j]))
				}
			}
			t.Logf("%s: max abs logit error vs numpy reference: %.3g", name, maxErr)
			if maxErr > refTolerance {
				t.Errorf("max abs logit error %.3g > %g", maxErr, refTolerance)
			}
		})
	}
}

// TestCachedMatchesReference decodes the reference sequence with the KV cache: a prefill of a prefix, then
// one step per token, on several rows at once.
func TestCachedMatchesReference(t *testing.T) {
	for _, name := range referenceCases {
		t.Run(name, func(t *testing.T) {
			m := loadTestModel(t, name, Options{MaxSeq: 64, PrefillChunk: 8, DType: hf.F32})
			ids := readIDs(t, name)
			want, _ := readNpy(t, filepath.Join("testdata", name, "logits.npy"))
			V := m.Config().VocabSize
			s := newSession(t, m, 3)
			const p = 11 // a prompt longer than one chunk, not a multiple of it
			got := make([][]float32, 0, len(ids))
			first, err := s.Prefill(ids[:p])
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, first)
			for i := p; i < len(ids); i++ {
				out, err := s.Step([]int{ids[i], ids[i], ids[i]}, []int{2, 0, 1})
				if err != nil {
					t.Fatal(err)
				}
				if d := maxAbsDiff(t, out[:1], out[1:2]) + maxAbsDiff(t, out[:1], out[2:]); d != 0 {
					t.Errorf("step %d: rows with the same tokens differ by %g", i, d)
				}
				got = append(got, out[0])
			}
			maxErr := 0.0
			for i, row := range got {
				pos := p - 1 + i
				for j := range V {
					maxErr = max(maxErr, math.Abs(float64(row[j])-want[pos*V+j]))
				}
			}
			t.Logf("%s: cached decoding: max abs logit error vs numpy reference: %.3g", name, maxErr)
			if maxErr > refTolerance {
				t.Errorf("max abs logit error %.3g > %g", maxErr, refTolerance)
			}
		})
	}
}
