package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFuzzSeeds(t *testing.T) {
	out := t.TempDir()
	code, _, errOut := gasp("fuzz", "seeds", "--target", "sql", "-n", "7", "--root", "../..", "--out", out)
	if code != 0 {
		t.Fatalf("fuzz seeds: exit %d: %s", code, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(out, "seed-*.test"))
	if len(files) != 7 {
		t.Fatalf("%d seed files, want 7", len(files))
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "set ::timeout 60000") {
		t.Errorf("seed lacks the timeout directive:\n%s", data)
	}
}

func TestFuzzUsage(t *testing.T) {
	for _, sub := range []string{"seeds", "validity", "run"} {
		code, out, _ := gasp("fuzz", sub, "-h")
		if code != 0 || !strings.Contains(out, "usage: gasp fuzz "+sub) {
			t.Errorf("fuzz %s -h: exit %d, %q", sub, code, out)
		}
	}
	if code, _, errOut := gasp("fuzz", "seeds", "--target", "json", "--root", "../..", "--out", t.TempDir()); code == 0 || !strings.Contains(errOut, "unknown fuzz target") {
		t.Errorf("unknown target: exit %d, %q", code, errOut)
	}
	if code, _, _ := gasp("fuzz", "run", "--target", "xml"); code != 2 {
		t.Errorf("run without --seeds and --out: exit %d, want 2", code)
	}
	if code, _, errOut := gasp("fuzz", "run", "--target", "xml", "--seeds", t.TempDir(), "--out", t.TempDir(), "--toolchain", t.TempDir()); code != 1 || !strings.Contains(errOut, "fuzz-setup.sh") {
		t.Errorf("run without a toolchain: exit %d, %q", code, errOut)
	}
}
