package llama

import (
	"math"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/hf"
	"github.com/gasplab/gasp/pkg/llama/internal/kernels"
)

// TestCPUEngine and TestGoMLXEngine run the model's tests on each engine, whichever DefaultBackend is: the
// same comparisons with the numpy reference and with the uncached forward pass, through every feature of a
// session.
func TestCPUEngine(t *testing.T)   { runEngineTests(t, CPUBackend) }
func TestGoMLXEngine(t *testing.T) { runEngineTests(t, "go") }

func runEngineTests(t *testing.T, backend string) {
	t.Setenv("GOMLX_BACKEND", backend)
	for _, tc := range []struct {
		name string
		test func(*testing.T)
	}{
		{"ForwardMatchesReference", TestForwardMatchesReference},
		{"CachedMatchesReference", TestCachedMatchesReference},
		{"CachedDecodingMatchesForward", TestCachedDecodingMatchesForward},
		{"ShortSession", TestShortSession},
		{"RememberedPrefix", TestRememberedPrefix},
		{"TruncateContinue", TestTruncateContinue},
		{"BatchedRows", TestBatchedRows},
		{"NoRecompilation", TestNoRecompilation},
		{"SessionErrors", TestSessionErrors},
		{"SpansMatchForward", TestSpansMatchForward},
		{"ConcurrentPrefill", TestConcurrentPrefill},
		{"LoadMatchesNew", TestLoadMatchesNew},
		{"LoadErrors", TestLoadErrors},
	} {
		t.Run(tc.name, tc.test)
	}
}

// TestCPUMatchesGoMLX decodes the same rows on the reference models of each family with both engines, with
// truncations and rows left out of steps, and requires the same logits to float32 rounding.
func TestCPUMatchesGoMLX(t *testing.T) {
	for _, name := range []string{"tiny", "qwen2", "qwen3"} {
		t.Run(name, func(t *testing.T) { testCPUMatchesGoMLX(t, name) })
	}
}

func testCPUMatchesGoMLX(t *testing.T, name string) {
	var logits [2][][]float32
	for e, backend := range []string{"go", CPUBackend} {
		m := loadTestModel(t, name, Options{MaxSeq: 200, Backend: backend, DType: hf.F32})
		s := newSession(t, m, 3)
		V := m.Config().VocabSize
		prompt := randomIDs(70, V, 11)
		first, err := s.Prefill(prompt)
		if err != nil {
			t.Fatal(err)
		}
		logits[e] = append(logits[e], first)
		ids := randomIDs(300, V, 12)
		for i := range 100 {
			rows := []int{0, 1, 2}[:1+i%3]
			toks := ids[3*i : 3*i+len(rows)]
			if i%17 == 16 {
				if err := s.Truncate(i%3, 70+i%5); err != nil {
					t.Fatal(err)
				}
			}
			out, err := s.Step(toks, rows)
			if err != nil {
				t.Fatal(err)
			}
			logits[e] = append(logits[e], out...)
		}
	}
	var worst float64
	for i := range logits[0] {
		for j, v := range logits[0][i] {
			worst = math.Max(worst, math.Abs(float64(v-logits[1][i][j])))
		}
	}
	if worst > 2e-5 {
		t.Errorf("cpu and GoMLX engines differ by %.3g", worst)
	}
	t.Logf("%d logit vectors, largest difference %.3g", len(logits[0]), worst)
}

// TestCPUBF16: with bfloat16 weights, the cpu engine's logits are, bit for bit, the float32 engine's on the
// weights rounded to bfloat16 (the matrices and the embedding; norms and biases stay float32), in every
// family, through prefills, batched steps and truncations; and its matrices are kept in bfloat16.
func TestCPUBF16(t *testing.T) {
	for _, cfg := range familyConfigs() {
		t.Run(string(cfg.ModelType), func(t *testing.T) {
			w := randomWeights(cfg, 1)
			rounded := map[string][]float32{}
			for _, spec := range cfg.weightSpecs() {
				rounded[spec.name] = w[spec.name]
				if len(spec.shape) == 2 {
					rounded[spec.name] = make([]float32, len(w[spec.name]))
					for i, v := range w[spec.name] {
						rounded[spec.name][i] = hf.BFloat16ToFloat32(hf.BFloat16(v))
					}
				}
			}
			f32, err := New(cfg, rounded, Options{MaxSeq: 200, Backend: CPUBackend, DType: hf.F32})
			if err != nil {
				t.Fatal(err)
			}
			defer f32.Close()
			bf16, err := New(cfg, w, Options{MaxSeq: 200, Backend: CPUBackend, DType: hf.BF16})
			if err != nil {
				t.Fatal(err)
			}
			defer bf16.Close()
			if bf16.DType() != hf.BF16 || bf16.cpu.layers[0].gateUp.bf16 == nil || bf16.cpu.head.bf16 == nil || bf16.cpu.embed.f32 != nil {
				t.Fatalf("DType %s: the matrices are not kept in bfloat16", bf16.DType())
			}
			a, b := decodeLogits(t, f32), decodeLogits(t, bf16)
			for i := range a {
				for j := range a[i] {
					if math.Float32bits(a[i][j]) != math.Float32bits(b[i][j]) {
						t.Fatalf("logit vector %d, token %d: bf16 %g, float32 on rounded weights %g", i, j, b[i][j], a[i][j])
					}
				}
			}
		})
	}
}

// With BF16Products the cpu engine's logits are the bf16 engine's moved by rounding the activations to
// bfloat16 where they enter products: within 2 % of the logits' spread, and not equal (the pair kernels
// ran). The options need the cpu engine and dtype BF16.
func TestCPUBF16Products(t *testing.T) {
	for _, cfg := range familyConfigs() {
		t.Run(string(cfg.ModelType), func(t *testing.T) {
			w := randomWeights(cfg, 1)
			plain := newRandomModelFrom(t, cfg, w, Options{MaxSeq: 200, Backend: CPUBackend, DType: hf.BF16})
			pairs := newRandomModelFrom(t, cfg, w, Options{MaxSeq: 200, Backend: CPUBackend, DType: hf.BF16, BF16Products: true})
			if !pairs.cpu.layers[0].down.pairs || !pairs.cpu.head.pairs || plain.cpu.head.pairs {
				t.Fatal("BF16Products: the matrices are not in pair layout (or are without it)")
			}
			a, b := decodeLogits(t, plain), decodeLogits(t, pairs)
			var diff, spread float64
			for i := range a {
				for j := range a[i] {
					diff = max(diff, math.Abs(float64(a[i][j]-b[i][j])))
					spread = max(spread, math.Abs(float64(a[i][j])))
				}
			}
			t.Logf("largest logit %.3g, largest difference %.3g", spread, diff)
			if diff == 0 || diff > 0.02*spread {
				t.Errorf("BF16Products: logits differ from the bf16 engine's by up to %g (largest logit %g)", diff, spread)
			}
		})
	}
	cfg := smallConfig()
	for _, o := range []Options{{Backend: CPUBackend, DType: hf.F32, BF16Products: true}, {Backend: "go", DType: hf.BF16, BF16Products: true}} {
		if _, err := New(cfg, randomWeights(cfg, 1), o); err == nil || !strings.Contains(err.Error(), "BF16Products needs") {
			t.Errorf("%+v: error %v", o, err)
		}
	}
}

func newRandomModelFrom(t *testing.T, cfg Config, w map[string][]float32, opts Options) *Model {
	t.Helper()
	m, err := New(cfg, w, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// decodeLogits prefills a random prompt into three rows and decodes 60 steps of varying rows, with
// truncations, returning every logit vector.
func decodeLogits(t *testing.T, m *Model) [][]float32 {
	t.Helper()
	s := newSession(t, m, 3)
	V := m.Config().VocabSize
	first, err := s.Prefill(randomIDs(40, V, 11))
	if err != nil {
		t.Fatal(err)
	}
	logits := [][]float32{first}
	ids := randomIDs(180, V, 12)
	for i := range 60 {
		rows := []int{0, 1, 2}[:1+i%3]
		if i%17 == 16 {
			if err := s.Truncate(i%3, 40+i%5); err != nil {
				t.Fatal(err)
			}
		}
		out, err := s.Step(ids[3*i:3*i+len(rows)], rows)
		if err != nil {
			t.Fatal(err)
		}
		logits = append(logits, out...)
	}
	return logits
}

// TestCPUBF16Checkpoint: a bf16 checkpoint loaded with bfloat16 weights gives, bit for bit, the logits of
// the float32 engine (its weights are bfloat16 values already).
func TestCPUBF16Checkpoint(t *testing.T) {
	ids := readIDs(t, "bf16")
	var out [2][][]float32
	for i, dt := range []hf.DType{hf.F32, hf.BF16} {
		out[i] = forward(t, loadTestModel(t, "bf16", Options{MaxSeq: 64, Backend: CPUBackend, DType: dt}), ids)
	}
	if d := maxAbsDiff(t, out[0], out[1]); d != 0 {
		t.Errorf("bf16 checkpoint: bf16 and f32 cpu engines differ by %g", d)
	}
}

// TestCPUOptions: the cpu engine takes no options, and refuses work once closed.
func TestCPUOptions(t *testing.T) {
	cfg := smallConfig()
	if _, err := New(cfg, randomWeights(cfg, 1), Options{Backend: "cpu:threads=2"}); err == nil || !strings.Contains(err.Error(), "takes no options") {
		t.Errorf("cpu engine with options: error %v", err)
	}
	m := newRandomModel(t, cfg, Options{Backend: CPUBackend})
	if m.Options().DType != hf.F32 || m.Compiles() != 0 {
		t.Errorf("cpu engine: dtype %q, %d compiles", m.Options().DType, m.Compiles())
	}
	m.Close()
	if _, err := m.NewSession(1); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("NewSession after Close: error %v", err)
	}
	if _, err := m.Forward([]int{1}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Forward after Close: error %v", err)
	}
}

// BenchmarkCPUKernels decodes 64 rows of the embedded model, data/models/tiny (128-token prompt, 64 steps, rows then back to
// the prompt) on the cpu engine with each kernel implementation this CPU runs, in tokens per second.
func BenchmarkCPUKernels(b *testing.B) {
	m := loadEmbeddedModel(b, Options{MaxSeq: 512, Backend: CPUBackend})
	V := m.Config().VocabSize
	prompt := randomIDs(128, V, 1)
	for _, name := range []string{"AVX-512", "AVX2", "portable Go"} {
		prev, err := kernels.Use(name)
		if err != nil {
			continue
		}
		b.Run(name, func(b *testing.B) {
			s := newSession(b, m, 64)
			rows, toks := make([]int, 64), randomIDs(64, V, 2)
			for i := range rows {
				rows[i] = i
			}
			for b.Loop() {
				if _, err := s.Prefill(prompt); err != nil {
					b.Fatal(err)
				}
				for range 64 {
					if _, err := s.Step(toks, rows); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(64*64*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
		kernels.Use(prev)
	}
}

// The cpu engine's memory with bfloat16 weights: the weights of BF16, the caches and temporaries of F32.
func TestEstimateBackendMemory(t *testing.T) {
	cfg := smallConfig()
	bf, _ := EstimateMemory(cfg, hf.BF16, 4, 100)
	f32, _ := EstimateMemory(cfg, hf.F32, 4, 100)
	cpu, err := EstimateBackendMemory(cfg, CPUBackend, hf.BF16, 4, 100)
	if err != nil || cpu.Weights != bf.Weights || cpu.Caches != f32.Caches || cpu.Temporaries != f32.Temporaries {
		t.Errorf("cpu engine, bf16: %+v, %v; want weights %d, caches %d, temporaries %d", cpu, err, bf.Weights, f32.Caches, f32.Temporaries)
	}
	if xla, _ := EstimateBackendMemory(cfg, "xla:cuda", hf.BF16, 4, 100); xla != bf {
		t.Errorf("xla, bf16: %+v, want %+v", xla, bf)
	}
}
