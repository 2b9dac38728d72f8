package modroot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repo is the checkout this test runs in: two levels above pkg/modroot.
func repo(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func TestFindFromEverywhere(t *testing.T) {
	root := repo(t)
	t.Setenv(Env, "")
	other := t.TempDir() // a module of its own, outside gasp
	if err := os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, wd := range []string{root, filepath.Join(root, "pkg", "modroot"), other, t.TempDir()} {
		t.Run(wd, func(t *testing.T) {
			t.Chdir(wd)
			got, err := Find()
			if err != nil || got != root {
				t.Errorf("Find() from %s = %q, %v; want %q", wd, got, err, root)
			}
		})
	}
	t.Chdir(other)
	t.Setenv(Env, root)
	if got, err := Find(); err != nil || got != root {
		t.Errorf("with %s=%s: Find() = %q, %v", Env, root, got, err)
	}
	t.Setenv(Env, other)
	if _, err := Find(); err == nil || !strings.Contains(err.Error(), Env+"="+other) {
		t.Errorf("with %s naming another module: err = %v, want one naming it", Env, err)
	}
}

func TestIsAndNearest(t *testing.T) {
	root := repo(t)
	if !Is(root) || Is(filepath.Join(root, "pkg")) {
		t.Errorf("Is(%s) = %t, Is(pkg) = %t", root, Is(root), Is(filepath.Join(root, "pkg")))
	}
	other := t.TempDir()
	for body, want := range map[string]bool{
		"module example.com/mine\n":               false,
		"// comment\nmodule \"" + Module + "\"\n": true,
		"module " + Module + "/sub\n":             false,
		"go 1.26\n":                               false,
	} {
		if err := os.WriteFile(filepath.Join(other, "go.mod"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := Is(other); got != want {
			t.Errorf("Is with go.mod %q = %t, want %t", body, got, want)
		}
	}
	sub := filepath.Join(other, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, ok := Nearest(sub); !ok || got != other {
		t.Errorf("Nearest(%s) = %q, %t; want %q", sub, got, ok, other)
	}
	if got, err := Path("data/models/tiny"); err != nil || got != filepath.Join(root, "data", "models", "tiny") {
		t.Errorf("Path = %q, %v", got, err)
	}
}
