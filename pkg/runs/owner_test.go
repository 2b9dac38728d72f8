package runs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogPAboveZero (F08): a log-probability above 0 (a probability above
// 1) is refused where records are read, with the file and line, and by
// Append; rounding a little above 0 is not.
func TestLogPAboveZero(t *testing.T) {
	for name, edit := range map[string]func(*Record){
		"logp 50":         func(r *Record) { r.LogP = 50 },
		"logp 1e308":      func(r *Record) { r.LogP = 1e308 },
		"logp_gcd 1e-6":   func(r *Record) { r.LogPGCD = 1e-6 },
		"proposal logp 3": func(r *Record) { r.Proposal = &Proposal{EOS: NoEOS, LogP: 3, LogPGCD: -1, Status: StatusCapped} },
	} {
		t.Run(name, func(t *testing.T) {
			r := rec("t", "m", 0, 1)
			edit(&r)
			for _, opt := range []Options{{ReadOnly: true}, {}} {
				dir, path := oneRecordStore(t)
				appendRaw(t, path, string(must(r.MarshalJSON()))+"\n")
				st := mustOpen(t, dir, opt)
				_, err := st.Records("t", "m")
				var ce *CorruptError
				if !errors.As(err, &ce) || ce.File != path || ce.Line != 2 || !strings.Contains(err.Error(), "> 0: a probability above 1") {
					t.Errorf("read-only %v: %v, want a CorruptError of %s:2", opt.ReadOnly, err, path)
				}
			}
			st := mustOpen(t, filepath.Join(t.TempDir(), "s"), Options{})
			if err := st.Append(r); err == nil || !strings.Contains(err.Error(), "> 0") {
				t.Errorf("Append: %v", err)
			}
			// A sample file ("gasp sample --out") is read as a store.
			f := filepath.Join(t.TempDir(), "f.jsonl")
			good := rec("t", "m", 0, 0)
			os.WriteFile(f, []byte(string(must(good.MarshalJSON()))+"\n"+string(must(r.MarshalJSON()))+"\n"), 0o644)
			fs, err := OpenFile(f, Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fs.Records("t", "m"); err == nil || !strings.Contains(err.Error(), f+":2") {
				t.Errorf("sample file: %v", err)
			}
		})
	}
	st := mustOpen(t, filepath.Join(t.TempDir(), "s"), Options{})
	r := rec("t", "m", 0, 0)
	r.LogP = 1e-12 // rounding of a probability of 1
	if err := st.Append(r); err != nil {
		t.Errorf("logp 1e-12: %v", err)
	}
}

// TestSymlinkedSeries (F31): a task directory or record file that is a
// symbolic link is an error naming it, for a reader listing the store, a
// reader of that series and a writer appending to it; the writer writes
// nothing through the link.
func TestSymlinkedSeries(t *testing.T) {
	dir, path := oneRecordStore(t)
	taskDir := filepath.Dir(path)
	elsewhere := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Rename(taskDir, elsewhere); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, taskDir); err != nil {
		t.Fatal(err)
	}
	want := taskDir + " is a symbolic link"
	ro := mustOpen(t, dir, Options{ReadOnly: true})
	if _, err := ro.Keys(); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Keys: %v", err)
	}
	if _, err := ro.Records("t", "m"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Records: %v", err)
	}
	before, _ := os.ReadFile(filepath.Join(elsewhere, filepath.Base(path)))
	st := mustOpen(t, dir, Options{})
	if err := st.Append(rec("t", "m", 0, 5)); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Append: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(elsewhere, filepath.Base(path))); string(after) != string(before) {
		t.Error("Append wrote through the link")
	}
	// A record file that is a link, in a real task directory.
	dir2, path2 := oneRecordStore(t)
	os.Rename(path2, filepath.Join(t.TempDir(), "x.jsonl"))
	os.Symlink(filepath.Join(elsewhere, filepath.Base(path)), path2)
	st2 := mustOpen(t, dir2, Options{})
	if err := st2.Append(rec("t", "m", 0, 5)); err == nil || !strings.Contains(err.Error(), path2+" is a symbolic link") {
		t.Errorf("Append to a linked file: %v", err)
	}
}

// TestBusy (F32): a store is busy while a writer holds it open, or marks
// it (Writing) between appends; not while only readers do, nor after.
func TestBusy(t *testing.T) {
	dir, _ := oneRecordStore(t)
	check := func(what string, want bool) {
		t.Helper()
		if got, err := Busy(dir); got != want || err != nil {
			t.Errorf("%s: Busy = %v, %v; want %v", what, got, err, want)
		}
	}
	check("closed", false)
	ro := mustOpen(t, dir, Options{ReadOnly: true})
	check("open read-only", false)
	st := mustOpen(t, dir, Options{})
	check("open for appending", true)
	st.Close()
	check("closed again", false)
	w, err := Writing(dir)
	if err != nil {
		t.Fatal(err)
	}
	check("marked", true)
	// A second writer joins the first: shards share a store.
	w2, err := Writing(dir)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	check("marked by the second", true)
	w2.Close()
	check("unmarked", false)
	ro.Close()
}
