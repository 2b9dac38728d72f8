package runs

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A single-file store: one (task, method), resume, torn last line, lock.
func TestOpenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out", "s.jsonl")
	st, err := OpenFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if keys, err := st.Keys(); err != nil || len(keys) != 0 {
		t.Fatalf("empty store: keys %v, %v", keys, err)
	}
	var want []Record
	for run := range 3 {
		r := rec("SLIA/x", "gcd", 0, run)
		if err := st.Append(r); err != nil {
			t.Fatal(err)
		}
		want = append(want, r)
	}
	if st.Path("SLIA/x", "gcd") != path {
		t.Errorf("Path = %s, want %s", st.Path("SLIA/x", "gcd"), path)
	}
	if err := st.Append(rec("SLIA/x", "asap", 0, 0)); err == nil || !strings.Contains(err.Error(), "holds the records of task") {
		t.Errorf("a second method in the file: %v", err)
	}
	if _, err := OpenFile(path, Options{}); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "holds s.jsonl") {
		t.Errorf("second writer: %v", err)
	}
	st.Close()

	appendRaw(t, path, `{"schema":1,"task":"SLIA/x","meth`)
	var warned []Warning
	st, err = OpenFile(path, Options{Warn: func(w Warning) { warned = append(warned, w) }})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if done, err := st.Has("SLIA/x", "gcd", 0, 2); err != nil || !done || len(warned) != 1 {
		t.Fatalf("resume: Has = %v, %v; warnings %v", done, err, warned)
	}
	if err := st.Append(rec("SLIA/x", "gcd", 0, 3)); err != nil {
		t.Fatal(err)
	}
	want = append(want, rec("SLIA/x", "gcd", 0, 3))
	got, err := st.Records("SLIA/x", "gcd")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("records after resume: %v (%v)", got, err)
	}
	ro, err := OpenFile(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if keys, err := ro.Keys(); err != nil || len(keys) != 1 || keys[0] != (Key{"SLIA/x", "gcd"}) {
		t.Errorf("keys %v, %v", keys, err)
	}
	n := 0
	if err := ro.Each(func(Record) error { n++; return nil }); err != nil || n != 4 {
		t.Errorf("Each: %d records, %v", n, err)
	}
	// A file of another series is refused, not mixed.
	other, err := OpenFile(filepath.Join(filepath.Dir(path), "o.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(other.Path("", ""), b, 0o644); err != nil {
		t.Fatal(err)
	}
	var ce *CorruptError
	if _, err := other.Has("SLIA/x", "asap", 0, 0); !errors.As(err, &ce) {
		t.Errorf("Has on a file of another method: %v", err)
	}
	if done, err := other.Has("SLIA/x", "gcd", 0, 1); err != nil || !done {
		t.Errorf("after a refused key, the file's own: %v, %v", done, err)
	}
}
