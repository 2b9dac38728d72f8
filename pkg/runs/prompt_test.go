package runs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// countPrompts returns how many lines of the file carry prompt_ids.
func countPrompts(t *testing.T, path string) (withPrompt, lines int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		lines++
		if bytes.Contains(l, []byte(`"prompt_ids"`)) {
			withPrompt++
		}
	}
	return withPrompt, lines
}

// TestPromptOnce checks that a series stores a prompt once per run of equal prompts, across reopenings, and
// that every record reads back with its prompt.
func TestPromptOnce(t *testing.T) {
	dir := t.TempDir()
	st := mustOpen(t, dir, Options{})
	var want []Record
	add := func(st *Store, r Record) {
		t.Helper()
		if err := st.Append(r); err != nil {
			t.Fatal(err)
		}
		want = append(want, r)
	}
	for run := range 3 {
		add(st, rec("t", "m", 0, run))
	}
	other := rec("t", "m", 0, 3)
	other.PromptIDs = []int{9, 9}
	add(st, other)
	add(st, rec("t", "m", 0, 4)) // back to {1, 2, 3}
	empty := rec("t", "m", 0, 5)
	empty.PromptIDs = nil
	add(st, empty)
	st.Close()

	st = mustOpen(t, dir, Options{}) // a resumed writer knows the last prompt
	empty2 := rec("t", "m", 0, 6)
	empty2.PromptIDs = []int{}
	add(st, empty2)
	add(st, rec("t", "m", 0, 7))
	add(st, rec("t", "m", 0, 8))

	path := st.Path("t", "m")
	if n, lines := countPrompts(t, path); n != 5 || lines != 9 {
		t.Errorf("%d of %d lines carry prompt_ids, want 5 of 9 (runs 0, 3, 4, 5, 7)", n, lines)
	}
	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ro.Records("t", "m")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range got {
		if len(got[i].PromptIDs) == 0 && len(want[i].PromptIDs) == 0 {
			continue // nil and [] are the same on disk
		}
		if !reflect.DeepEqual(got[i].PromptIDs, want[i].PromptIDs) {
			t.Errorf("record %d: prompt %v, want %v", i, got[i].PromptIDs, want[i].PromptIDs)
		}
	}
}

// TestPromptSchema1 checks that a file of schema-1 records (every line with its prompt) reads as before and
// that a writer resuming it leaves out the repeated prompt in the records it adds.
func TestPromptSchema1(t *testing.T) {
	dir := t.TempDir()
	st := mustOpen(t, dir, Options{})
	for run := range 2 {
		r := rec("t", "m", 0, run)
		r.Schema = 1
		if err := st.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Append(rec("t", "m", 0, 2)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if n, lines := countPrompts(t, filepath.Join(dir, "t", "m.jsonl")); n != 2 || lines != 3 {
		t.Errorf("%d of %d lines carry prompt_ids, want 2 of 3", n, lines)
	}
	ro, _ := OpenReadOnly(dir)
	got, err := ro.Records("t", "m")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got {
		if !reflect.DeepEqual(r.PromptIDs, []int{1, 2, 3}) {
			t.Errorf("run %d: prompt %v", r.Run, r.PromptIDs)
		}
	}
}

// TestPromptMissing checks that a schema-2 first record without prompt_ids is corruption, named by line, and
// that a writer whose first line was torn writes the prompt again.
func TestPromptMissing(t *testing.T) {
	dir := t.TempDir()
	st := mustOpen(t, dir, Options{})
	r := rec("t", "m", 0, 0)
	line, err := r.encode(false)
	if err != nil {
		t.Fatal(err)
	}
	path := st.Path("t", "m")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, append(line, '\n'), 0o644)
	var ce *CorruptError
	if _, err := st.Records("t", "m"); !errors.As(err, &ce) || ce.Line != 1 {
		t.Fatalf("Records: %v, want a CorruptError at line 1", err)
	}
	st.Close()

	dir2 := t.TempDir()
	st2 := mustOpen(t, dir2, Options{})
	path2 := st2.Path("t", "m")
	os.MkdirAll(filepath.Dir(path2), 0o755)
	full, _ := r.encode(true)
	os.WriteFile(path2, full[:len(full)/2], 0o644) // a killed writer's torn first line
	if err := st2.Append(r); err != nil {
		t.Fatal(err)
	}
	if err := st2.Append(rec("t", "m", 0, 1)); err != nil {
		t.Fatal(err)
	}
	if n, lines := countPrompts(t, path2); n != 1 || lines != 2 {
		t.Errorf("%d of %d lines carry prompt_ids, want 1 of 2", n, lines)
	}
	got, err := st2.Records("t", "m")
	if err != nil || len(got) != 2 || !reflect.DeepEqual(got[1].PromptIDs, []int{1, 2, 3}) {
		t.Errorf("Records: %v, %+v", err, got)
	}
}
