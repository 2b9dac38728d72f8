package runs

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A last line that is complete (newline-terminated) but not a record, or
// that is not the start of a record, is corruption: neither a reader nor a
// writer drops it, and the file is left as it is.
func TestBadLastLine(t *testing.T) {
	for name, tail := range map[string]string{
		"garbage line":       "{\"schema\":1,\"task\n",
		"parses, wrong type": `{"schema":1,"task":"t","method":"m","logp":"x","logp_gcd":0}` + "\n",
		"user text":          "notes\n",
		"user text, no nl":   "notes",
	} {
		t.Run(name, func(t *testing.T) {
			dir, path := oneRecordStore(t)
			appendRaw(t, path, tail)
			before, _ := os.ReadFile(path)
			var ce *CorruptError
			ro := mustOpen(t, dir, Options{ReadOnly: true})
			if _, err := ro.Records("t", "m"); !errors.As(err, &ce) || ce.Line != 2 {
				t.Errorf("read-only: %v, want a CorruptError on line 2", err)
			}
			st := mustOpen(t, dir, Options{})
			if err := st.Append(rec("t", "m", 0, 1)); !errors.As(err, &ce) {
				t.Errorf("Append: %v, want a CorruptError", err)
			}
			st.Close()
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Error("the file was changed")
			}
		})
	}
}

// Records no writer appends: a duplicate (k, run), conflicting or not, and
// negative k or run.
func TestRecordsNoWriterAppends(t *testing.T) {
	line := func(r Record) string { return string(must(json.Marshal(r))) + "\n" }
	neg := rec("t", "m", 0, 1)
	neg.Run = -1
	negK := rec("t", "m", 0, 1)
	negK.K = -2
	other := rec("t", "m", 0, 0)
	other.Text = "another text"
	for name, tc := range map[string]struct {
		tail, want string
	}{
		"duplicate":             {line(rec("t", "m", 0, 0)), "second record of k 0, run 0 (the first is on line 1)"},
		"conflicting duplicate": {line(other), "second record of k 0, run 0"},
		"negative run":          {line(neg), "run = -1 < 0"},
		"negative k":            {line(negK), "k = -2 < 0"},
	} {
		t.Run(name, func(t *testing.T) {
			dir, path := oneRecordStore(t)
			appendRaw(t, path, tc.tail)
			ro := mustOpen(t, dir, Options{ReadOnly: true})
			err := ro.Each(func(Record) error { return nil })
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Line != 2 || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Each: %v, want a CorruptError on line 2 with %q", err, tc.want)
			}
		})
	}
}

// A directory or record file whose name is not an escaped name is an error
// that names it, never skipped.
func TestUnreadableNames(t *testing.T) {
	for _, bad := range []string{"CP%2fx", "bad%ZZ", ".hidden", "a b", "x%"} {
		for _, asFile := range []bool{false, true} {
			dir, _ := oneRecordStore(t)
			p := filepath.Join(dir, bad)
			if asFile {
				p = filepath.Join(dir, "t", bad+ext)
				os.WriteFile(p, nil, 0o644)
			} else {
				os.Mkdir(p, 0o755)
			}
			ro := mustOpen(t, dir, Options{ReadOnly: true})
			_, err := ro.Keys()
			if err == nil || !strings.Contains(err.Error(), p) {
				t.Errorf("Keys with %s: %v, want an error naming it", p, err)
			}
		}
	}
}

// Locks never overwrite a user's file, and a single-file store leaves no
// file behind when nothing was written.
func TestLockLeavesUserFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, lockName), []byte("my notes\n"), 0o644)
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "not a lock file") {
		t.Errorf("Open with a user's LOCK: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, lockName)); string(b) != "my notes\n" {
		t.Errorf("LOCK overwritten: %q", b)
	}
	_, statErr := os.Stat(os.DevNull + ".lock") // an older gasp may have left one
	for _, p := range []string{os.DevNull, dir} {
		if _, err := OpenFile(p, Options{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("OpenFile(%s): %v", p, err)
		}
	}
	if _, err := os.Stat(os.DevNull + ".lock"); err == nil && statErr != nil {
		t.Errorf("%s.lock created", os.DevNull)
	}
	p := filepath.Join(dir, "out.jsonl")
	st, err := OpenFile(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if left, _ := filepath.Glob(filepath.Join(dir, "out*")); len(left) != 0 {
		t.Errorf("an unused single-file store left %v", left)
	}
}
