package tokenizer

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchText returns n bytes of mixed text: the prompts of data/gad (SyGuS
// and constraint problems in English), llama.cpp's test inputs and 256 KB of
// random mixed-script strings, repeated.
func benchText(tb testing.TB, n int) string {
	var b strings.Builder
	filepath.WalkDir(filepath.Join("..", "..", "data", "gad"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "prompt.txt" {
			if data, err := os.ReadFile(path); err == nil {
				b.Write(data)
			}
		}
		return nil
	})
	if data, err := os.ReadFile("testdata/llama-bpe.inp"); err == nil {
		b.Write(data)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for end := b.Len() + 256<<10; b.Len() < end; {
		b.WriteString(randomString(r, genOptions{}))
		b.WriteByte(' ')
	}
	s := b.String()
	return strings.Repeat(s, n/len(s)+1)[:n]
}

func BenchmarkEncode(b *testing.B) {
	tok := loadLlama3(b)
	text := benchText(b, 4<<20)
	tok.Encode(text, false) // fill the cache
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		tok.Encode(text, false)
	}
}

func BenchmarkEncodeCold(b *testing.B) {
	tok := loadLlama3(b)
	text := benchText(b, 4<<20)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		tok.cache = newCache()
		tok.Encode(text, false)
	}
}

func BenchmarkPreTokenize(b *testing.B) {
	text := benchText(b, 4<<20)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		splitLlama3(text, func(string) bool { return true })
	}
}

func BenchmarkDecode(b *testing.B) {
	tok := loadLlama3(b)
	text := benchText(b, 4<<20)
	ids := tok.Encode(text, false)
	b.SetBytes(int64(len(text)))
	var buf []byte
	for b.Loop() {
		buf, _ = tok.AppendDecode(buf[:0], ids, DecodeOptions{})
	}
}

func BenchmarkLoad(b *testing.B) {
	if _, err := os.Stat(llama3Path); err != nil {
		b.Skip("no Llama-3 tokenizer (run scripts/fetch-tokenizer.sh)")
	}
	data, err := os.ReadFile(llama3Path)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
