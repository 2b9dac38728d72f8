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

// TestCPUOptions: the cpu engine computes in float32 and says so when asked for bfloat16.
func TestCPUOptions(t *testing.T) {
	cfg := smallConfig()
	if _, err := New(cfg, randomWeights(cfg, 1), Options{Backend: CPUBackend, DType: hf.BF16}); err == nil || !strings.Contains(err.Error(), "float32 only") {
		t.Errorf("bf16 on the cpu engine: error %v", err)
	}
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
