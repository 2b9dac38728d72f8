package llama

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	backends "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
)

// cpuTime returns the user+system CPU time of the process: on a shared machine, tokens per CPU-second is a
// steadier measure of one core's throughput than wall-clock time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchConfig is a few-million-parameter Llama: 4 layers, hidden 256, 4 heads of 64 (2 KV heads),
// intermediate 768, vocabulary 4096, tied embeddings: 4.2 M parameters.
func benchConfig() Config {
	return Config{
		HiddenSize:            256,
		NumHiddenLayers:       4,
		NumAttentionHeads:     4,
		NumKeyValueHeads:      2,
		HeadDim:               64,
		IntermediateSize:      768,
		RMSNormEps:            1e-5,
		RopeTheta:             500000,
		RopeScaling:           &RopeScaling{RopeType: "llama3", Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositionEmbeddings: 8192},
		TieWordEmbeddings:     true,
		VocabSize:             4096,
		MaxPositionEmbeddings: 8192,
		BOSTokenID:            1,
		EOSTokenIDs:           []int{2},
	}
}

// BenchmarkDecode measures batched decoding with a cache of 256 positions: every iteration is one Step of
// all rows; rows that fill up are truncated back to the prompt. Set LLAMA_BENCH_BACKEND to pick a backend
// configuration (e.g. "go:ops_sequential"); run under "taskset -c 0" for one core.
func BenchmarkDecode(b *testing.B) {
	cfg := benchConfig()
	opts := Options{MaxSeq: 256, Backend: os.Getenv("LLAMA_BENCH_BACKEND")}
	m := newRandomModel(b, cfg, opts)
	b.Logf("model: %.2f M parameters, backend %q", float64(cfg.NumParams())/1e6, m.Options().Backend)
	prompt := randomIDs(16, cfg.VocabSize, 1)
	for _, batch := range []int{1, 16, 64} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			s, err := m.NewSession(batch)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Prefill(prompt); err != nil {
				b.Fatal(err)
			}
			rows := make([]int, batch)
			tokens := make([]int, batch)
			for i := range rows {
				rows[i] = i
				tokens[i] = (7 * i) % cfg.VocabSize
			}
			// Warm up: the first step compiles the decode graph.
			if _, err := s.Step(tokens, rows); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			cpu0 := cpuTime()
			start := time.Now()
			for range b.N {
				if s.Len(0) == m.MaxSeq() {
					for r := range rows {
						if err := s.Truncate(r, len(prompt)); err != nil {
							b.Fatal(err)
						}
					}
				}
				if _, err := s.Step(tokens, rows); err != nil {
					b.Fatal(err)
				}
			}
			el := time.Since(start)
			cpu := cpuTime() - cpu0
			b.ReportMetric(float64(b.N*batch)/el.Seconds(), "tokens/s")
			b.ReportMetric(float64(b.N*batch)/cpu.Seconds(), "tokens/cpu-s")
			b.ReportMetric(float64(el.Microseconds())/float64(b.N)/1000, "ms/step")
		})
	}
}

// BenchmarkCacheWrite compares two ways to write one new key per row into a K cache [B, kvH, S+1, hd]
// without DynamicUpdateSlice: the ScatterMin/ScatterMax pair the decoder uses (in place, O(B·kvH·hd)) and a
// Where over the whole cache against an iota == slot mask (O(cache)).
func BenchmarkCacheWrite(b *testing.B) {
	const B, kvH, S1, hd = 64, 2, 257, 64
	be, err := newBackend("go")
	if err != nil {
		b.Fatal(err)
	}
	defer be.Finalize()
	cacheShape := shapes.Make(dtypes.Float32, B, kvH, S1, hd)
	build := map[string]func(cache, slot, idx, upd *Node) *Node{
		"scatter": func(cache, _, idx, upd *Node) *Node { return writeCache(cache, idx, upd, 2) },
		"where": func(cache, slot, _, upd *Node) *Node {
			mask := Equal(Iota(cache.Graph(), shapes.Make(dtypes.Int32, B, kvH, S1, hd), 2),
				BroadcastToDims(Reshape(slot, B, 1, 1, 1), B, kvH, S1, hd))
			return Where(mask, BroadcastToDims(Reshape(upd, B, kvH, 1, hd), B, kvH, S1, hd), cache)
		},
	}
	for _, name := range []string{"scatter", "where"} {
		b.Run(name, func(b *testing.B) {
			g := NewGraph(be, name)
			cache := Parameter(g, "cache", cacheShape)
			slot := Parameter(g, "slot", shapes.Make(dtypes.Int32, B))
			idx := Parameter(g, "idx", shapes.Make(dtypes.Int32, B, 2))
			upd := Parameter(g, "upd", shapes.Make(dtypes.Float32, B, kvH, hd))
			g.Compile(build[name](cache, slot, idx, upd))
			defer g.Finalize()
			cb, err := be.BufferFromFlatData(0, make([]float32, cacheShape.Size()), cacheShape)
			if err != nil {
				b.Fatal(err)
			}
			slots := make([]int32, B)
			idxs := make([]int32, 2*B)
			for r := range B {
				slots[r] = int32(r)
				idxs[2*r], idxs[2*r+1] = int32(r), int32(r)
			}
			updates := make([]float32, B*kvH*hd)
			b.ResetTimer()
			for range b.N {
				sb, _ := be.BufferFromFlatData(0, slots, shapes.Make(dtypes.Int32, B))
				ib, _ := be.BufferFromFlatData(0, idxs, shapes.Make(dtypes.Int32, B, 2))
				ub, _ := be.BufferFromFlatData(0, updates, shapes.Make(dtypes.Float32, B, kvH, hd))
				out := g.RunWithBuffers([]backends.Buffer{cb, sb, ib, ub}, []bool{true, true, true, true}, 0)
				if cb, err = out[0].DonateBuffer(be, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPrefill measures the prefill of a 128-token prompt into one row, on the embedded model
// (data/models/tiny) and the backend of LLAMA_BENCH_BACKEND; each iteration changes the prompt's first token so
// that it is computed, not remembered.
func BenchmarkPrefill(b *testing.B) {
	m := loadEmbeddedModel(b, Options{MaxSeq: 512, Backend: os.Getenv("LLAMA_BENCH_BACKEND")})
	prompt := randomIDs(128, m.Config().VocabSize, 1)
	s, err := m.NewSession(1)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := 0; b.Loop(); i++ {
		prompt[0] = i % m.Config().VocabSize
		if _, err := s.Prefill(prompt); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(128*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// loadEmbeddedModel loads the repository's embedded model, data/models/tiny (590k parameters; testdata/tiny
// is a smaller test model), once per test binary and options.
func loadEmbeddedModel(b testing.TB, opts Options) *Model {
	return loadTestModel(b, filepath.Join("..", "..", "..", "data", "models", "tiny"), opts) // from testdata/
}
