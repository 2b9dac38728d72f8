package analysis

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/runs"
)

func TestLogImportance(t *testing.T) {
	recs := []runs.Record{
		{Valid: true, LogP: math.Log(0.2), LogPGCD: math.Log(0.4)},
		{Valid: true, LogP: math.Log(0.1), LogPGCD: math.Log(0.5)},
		{Valid: false, LogP: 0, LogPGCD: -1},
	}
	lz, n := LogImportance(recs)
	if want := math.Log((0.5 + 0.2) / 3); n != 2 || math.Abs(lz-want) > 1e-12 {
		t.Errorf("LogImportance = %g, %d; want %g, 2", lz, n, want)
	}
	// Far below the smallest float64: still finite in log space.
	lz, _ = LogImportance([]runs.Record{{Valid: true, LogP: -2000, LogPGCD: -1}})
	if lz != -1999 {
		t.Errorf("tiny Z: log %g, want -1999", lz)
	}
	if lz, n := LogImportance(recs[2:]); n != 0 || !math.IsInf(lz, -1) {
		t.Errorf("no valid record: %g, %d", lz, n)
	}
}

func TestWilson(t *testing.T) {
	lo, hi := Wilson(0, 0)
	if lo != 0 || hi != 1 {
		t.Errorf("Wilson(0, 0) = %g, %g", lo, hi)
	}
	// Wilson's interval for 5 of 10: [0.2366, 0.7634].
	lo, hi = Wilson(5, 10)
	if math.Abs(lo-0.2366) > 1e-4 || math.Abs(hi-0.7634) > 1e-4 {
		t.Errorf("Wilson(5, 10) = %g, %g", lo, hi)
	}
}

func TestLoadDirsAndSubset(t *testing.T) {
	var dirs []string
	for i, task := range []string{"SLIA/a", "BV4/b"} {
		dir := filepath.Join(t.TempDir(), "store")
		st, err := runs.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Append(runs.Record{Task: task, Method: GCD, Run: i, Valid: true}); err != nil {
			t.Fatal(err)
		}
		st.Close()
		dirs = append(dirs, dir)
	}
	d, err := LoadDirs(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Tasks(); len(got) != 2 {
		t.Fatalf("tasks %v", got)
	}
	if got := d.Subset("BV4").Tasks(); len(got) != 1 || got[0] != "BV4/b" {
		t.Errorf("Subset(BV4): %v", got)
	}
	if got := d.Subset("").Tasks(); len(got) != 2 {
		t.Errorf("Subset(\"\"): %v", got)
	}
	if _, err := LoadDirs(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing store: no error")
	}
	empty := filepath.Join(t.TempDir(), "empty")
	st, err := runs.Open(empty)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := LoadDirs(dirs[0], empty); err == nil || !strings.Contains(err.Error(), "holds no records") {
		t.Errorf("an empty store: %v", err)
	}
}
