package notebook

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestRun(t *testing.T) {
	nbDir, err := filepath.Abs("../../notebooks")
	if err != nil {
		t.Fatal(err)
	}
	var got Repo
	var b bytes.Buffer
	if code := run(&b, nbDir, func(r Repo) error { got = r; return nil }); code != 0 || b.Len() > 0 {
		t.Fatalf("passing cell: exit %d, output %q", code, b.String())
	}
	if _, err := os.Stat(got.Path("go.mod")); err != nil {
		t.Errorf("Path(go.mod): %v", err)
	}
	if code := run(&b, nbDir, func(Repo) error { return errors.New("no store") }); code != 1 || b.String() != "error: no store\n" {
		t.Errorf("failing cell: exit %d, output %q", code, b.String())
	}
	b.Reset()
	called := false
	_, noDir := FromDir("")
	if code := run(&b, "", func(Repo) error { called = true; return nil }); code != 1 || called || b.String() != "error: "+noDir.Error()+"\n" {
		t.Errorf("no GONB_DIR: exit %d, called %v, output %q", code, called, b.String())
	}
	if _, err := FromDir(t.TempDir()); err == nil {
		t.Error("a directory outside the repository: no error")
	}
}

func TestPath(t *testing.T) {
	r := Repo{Root: "/repo"}
	if got, want := r.Path("mcmc/quick"), filepath.Join("/repo", "mcmc", "quick"); got != want {
		t.Errorf("Path(mcmc/quick) = %q, want %q", got, want)
	}
	if got := r.Path("/abs/store"); got != "/abs/store" {
		t.Errorf("Path(/abs/store) = %q", got)
	}
}
