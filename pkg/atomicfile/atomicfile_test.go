package atomicfile_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/atomicfile"
)

func TestWriteFileReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	for _, s := range []string{"first", "second"} {
		if err := atomicfile.WriteFile(p, []byte(s)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != s {
			t.Fatalf("read %q, %v; want %q", got, err, s)
		}
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, %v; want 0644", fi.Mode(), err)
	}
	assertOnly(t, dir, "a.txt")
}

func TestWriteErrorKeepsOld(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	if err := atomicfile.WriteFile(p, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := atomicfile.Write(p, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), p) {
		t.Fatalf("err = %v; want boom, naming %s", err, p)
	}
	if got, _ := os.ReadFile(p); string(got) != "old" {
		t.Fatalf("file = %q after a failed write; want old", got)
	}
	assertOnly(t, dir, "a.txt")
}

func TestWriteMissingDir(t *testing.T) {
	p := filepath.Join(t.TempDir(), "no", "a.txt")
	err := atomicfile.WriteFile(p, []byte("x"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), p) {
		t.Fatalf("err = %v; want not-exist naming %s", err, p)
	}
}

// assertOnly fails unless dir holds exactly the named entries (no temporary files left).
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if fmt.Sprint(got) != fmt.Sprint(names) {
		t.Fatalf("%s holds %v; want %v", dir, got, names)
	}
}

func ExampleWriteFile() {
	dir, _ := os.MkdirTemp("", "atomicfile")
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "greeting.txt")
	if err := atomicfile.WriteFile(p, []byte("hello\n")); err != nil {
		fmt.Println(err)
		return
	}
	b, _ := os.ReadFile(p)
	fmt.Print(string(b))
	// Output: hello
}
