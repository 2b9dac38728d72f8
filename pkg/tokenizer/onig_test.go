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
