package gcd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
)

// BenchmarkWorkload runs whole passes over the token-mask workloads of
// data/bench/masks, each from a freshly built Machine (cold caches), and
// reports the mean time per step. "gasp bench masks" reports percentiles.
func BenchmarkWorkload(b *testing.B) {
	v, trie := llama3Trie(b)
	for _, name := range workloads {
		w := loadWorkload(b, name)
		b.Run(name, func(b *testing.B) {
			steps := 0
			for b.Loop() {
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
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				g, _, err := grammar.Compile(name, src, grammar.Options{})
				if err != nil {
					b.Fatal(err)
				}
				NewMasker(earley.New(g), v, trie)
			}
		})
	}
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
