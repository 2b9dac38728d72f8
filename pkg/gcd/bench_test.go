package gcd

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
)

// BenchmarkWorkload runs whole passes over the token-mask workloads of
// data/bench/masks, each from a freshly built Machine (cold caches, and
// none of the walks the trie keeps: forgetWalks), and
// reports the mean time per step. "gasp bench masks" reports percentiles.
func BenchmarkWorkload(b *testing.B) {
	v, trie := llama3Trie(b)
	for _, name := range workloads {
		w := loadWorkload(b, name)
		b.Run(name, func(b *testing.B) {
			steps := 0
			for b.Loop() {
				b.StopTimer()
				trie.forgetWalks()
				b.StartTimer()
				stepThrough(b, NewMasker(earley.New(w.g), v, trie).NewState(), w.ids)
				steps += len(w.ids) + 1
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps)/1e3, "µs/step")
		})
	}
}

// BenchmarkFirstMask compares, in one run, the cold mask after the first
// token of each workload (fresh Machine and Masker, built outside the
// timer) with the naive baseline that feeds every token's bytes to a fresh
// parser (what an engine without a token trie does, llama.cpp's approach).
func BenchmarkFirstMask(b *testing.B) {
	v, trie := llama3Trie(b)
	for _, name := range workloads {
		w := loadWorkload(b, name)
		b.Run(name+"/gasp", func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				trie.forgetWalks()
				st := NewMasker(earley.New(w.g), v, trie).NewState()
				if err := st.Advance(w.ids[0]); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				st.Allowed()
			}
		})
		b.Run(name+"/naive", func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				m := earley.New(w.g)
				b.StartTimer()
				if _, err := bruteMaskWith(m, v, v.Token(w.ids[0])); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCompile measures what "gasp bench masks" reports as compile
// time: grammar text to a Masker ready for its first mask.
func BenchmarkCompile(b *testing.B) {
	v := loadLlama3(b)
	trie := NewTrie(v)
	for _, name := range workloads {
		src, err := os.ReadFile(filepath.Join("..", "..", "data", "bench", "masks", name+".gbnf"))
		if err != nil {
			b.Fatal(err)
		}
		for _, labels := range labelNames {
			b.Run(name+"/"+labels.name, func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					trie.forgetWalks()
					b.StartTimer()
					g, _, err := grammar.Compile(name, src, grammar.Options{})
					if err != nil {
						b.Fatal(err)
					}
					newMasker(earley.New(g), v, trie, labels.labels)
				}
			})
		}
	}
}

// labelNames names the tries a Masker may walk (labels.go), for
// benchmarks that compare them.
var labelNames = []struct {
	name   string
	labels int
}{{"shared", labelsShared}, {"own", labelsOwn}}

// BenchmarkNewTrie measures what is done once per vocabulary: the trie
// and its relabelling by the shared labels (labels.go).
func BenchmarkNewTrie(b *testing.B) {
	v := loadLlama3(b)
	cpu0 := processCPU()
	for b.Loop() {
		NewTrie(v)
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkWarmPass runs passes over each workload with warm caches (a
// mask and the token at every step, then a rollback to the start), the
// steady state of a sampler that regrows suffixes; with -benchmem it shows
// that the steady state allocates nothing.
func BenchmarkWarmPass(b *testing.B) {
	v, trie := llama3Trie(b)
	for _, name := range workloads {
		w := loadWorkload(b, name)
		b.Run(name, func(b *testing.B) {
			st := NewMasker(earley.New(w.g), v, trie).NewState()
			steps := 0
			pass := func() {
				stepThrough(b, st, w.ids)
				st.Rollback(0)
				steps += len(w.ids) + 1
			}
			pass()
			steps = 0
			b.ReportAllocs()
			for b.Loop() {
				pass()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps)/1e3, "µs/step")
		})
	}
}

// BenchmarkLeastStep runs 7 passes over each workload, each from a freshly
// built Masker with the garbage collector off, and reports for each step
// the least time over the passes (what noise cannot make smaller): the
// median step (p50-µs), the third slowest (third-µs: with 3 passes the
// slowest steps appear 3 times each, so it decides "gasp bench masks"'s
// p99 on workloads of 100 to 330 steps) and the slowest (max-µs). Run it
// once: go test -run '^$' -bench LeastStep -benchtime 1x ./pkg/gcd
func BenchmarkLeastStep(b *testing.B) {
	v, trie := llama3Trie(b)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for _, name := range workloads {
		w := loadWorkload(b, name)
		for _, labels := range labelNames {
			b.Run(name+"/"+labels.name, func(b *testing.B) {
				for b.Loop() {
					least := leastSteps(b, w, v, trie, labels.labels, 7)
					slices.Sort(least)
					n := len(least)
					b.ReportMetric(least[n/2], "p50-µs")
					b.ReportMetric(least[n-3], "third-µs")
					b.ReportMetric(least[n-1], "max-µs")
				}
			})
		}
	}
}

// leastSteps returns, by step of w, its least time in µs over passes cold
// passes.
func leastSteps(b *testing.B, w workload, v *Vocab, trie *Trie, labels, passes int) []float64 {
	least := make([]float64, len(w.ids)+1)
	for p := range passes {
		trie.forgetWalks() // every pass cold: no shape walked by the last
		runtime.GC()
		st := newMasker(earley.New(w.g), v, trie, labels).NewState()
		for i := 0; i <= len(w.ids); i++ {
			t0 := time.Now()
			st.Allowed()
			d := float64(time.Since(t0).Nanoseconds()) / 1e3
			if p == 0 || d < least[i] {
				least[i] = d
			}
			if i < len(w.ids) {
				if err := st.Advance(w.ids[i]); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	return least
}

// BenchmarkRelabel measures relabelling the Llama-3 trie by the byte
// classes of the JSON grammar, which NewMasker does once per grammar that
// does not walk the shared labels' trie (labels.go).
func BenchmarkRelabel(b *testing.B) {
	v := loadLlama3(b)
	trie := NewTrie(v)
	g, _, err := grammar.CompileFile(filepath.Join("..", "..", "grammar", "json.gbnf"), grammar.Options{})
	if err != nil {
		b.Fatal(err)
	}
	m := earley.New(g)
	cpu0 := processCPU()
	for b.Loop() {
		trie.relabel(classTable(func(c byte) uint8 { return uint8(m.ByteClass(c)) }))
	}
	// CPU time too: on a shared machine wall time counts others' turns.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}
