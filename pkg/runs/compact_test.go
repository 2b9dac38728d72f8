package runs

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// compactStore writes a store of two tasks × two methods × 6 runs, with
// MCMC steps, a proposal and a prompt that changes mid-series, and returns
// its directory and every record as read back before any compaction.
func compactStore(t *testing.T) (string, map[Key][]Record) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "exp")
	st := mustOpen(t, dir, Options{})
	for _, task := range []string{"SLIA/name-combine-4", "BV4/inv"} {
		for _, method := range []string{"gcd", "mcmc-uniform"} {
			for run := range 6 {
				r := rec(task, method, 1, run)
				if method != "gcd" {
					r.Accepted = []bool{run%2 == 0}
					r.Proposal = &Proposal{IDs: []int{run, 7}, EOS: 9, LogP: -3, LogPGCD: -1, Valid: true, Status: StatusComplete}
				}
				if run >= 4 {
					r.PromptIDs = []int{4, 5}
				}
				if err := st.Append(r); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, readAll(t, dir)
}

// readAll reads every series of the store dir through a read-only store.
func readAll(t *testing.T, dir string) map[Key][]Record {
	t.Helper()
	ro := must(OpenReadOnly(dir))
	keys := must(ro.Keys())
	out := map[Key][]Record{}
	for _, k := range keys {
		out[k] = must(ro.Records(k.Task, k.Method))
	}
	if w := ro.Warnings(); len(w) != 0 {
		t.Fatalf("warnings: %v", w)
	}
	return out
}

func compact(t *testing.T, dir string) CompactStats {
	t.Helper()
	st := must(Open(dir))
	defer st.Close()
	stats, err := st.Compact()
	if err != nil {
		t.Fatal(err)
	}
	return stats
}

// TestCompact checks that a compacted store reads back the same records
// from sealed segments only, that appending after it starts an open
// segment (with its prompt) which readers add to the sealed records, that
// a sealed (k, run) is still refused, and that a second compaction merges.
func TestCompact(t *testing.T) {
	dir, want := compactStore(t)
	stats := compact(t, dir)
	if stats.Series != 4 || stats.After <= 0 || stats.After >= stats.Before {
		t.Fatalf("stats %+v", stats)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
	for _, f := range files {
		if !strings.HasSuffix(f, sealedExt) {
			t.Errorf("%s left after compaction", f)
		}
	}
	if len(files) != 4 {
		t.Errorf("files %v, want 4 sealed segments", files)
	}
	if got := readAll(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatalf("after compaction:\n%+v\nwant\n%+v", got, want)
	}

	st := must(Open(dir))
	if done, err := st.Has("BV4/inv", "gcd", 1, 3); !done || err != nil {
		t.Fatalf("Has of a sealed record = %v, %v", done, err)
	}
	if err := st.Append(rec("BV4/inv", "gcd", 1, 3)); !errors.Is(err, ErrExists) {
		t.Fatalf("Append of a sealed sample: %v", err)
	}
	extra := rec("BV4/inv", "gcd", 1, 6)
	extra.PromptIDs = []int{4, 5} // as the last sealed record's: still written, the open segment's first
	if err := st.Append(extra); err != nil {
		t.Fatal(err)
	}
	if got := must(st.Records("BV4/inv", "gcd")); len(got) != 7 || !reflect.DeepEqual(got[6], extra) {
		t.Fatalf("writable store reads %d records, last %+v", len(got), got[len(got)-1])
	}
	st.Close()
	open := filepath.Join(dir, "BV4%2Finv", "gcd.jsonl")
	if withPrompt, lines := countPrompts(t, open); withPrompt != 1 || lines != 1 {
		t.Fatalf("open segment: %d of %d lines with prompt_ids", withPrompt, lines)
	}
	want[Key{"BV4/inv", "gcd"}] = append(want[Key{"BV4/inv", "gcd"}], extra)
	if got := readAll(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatal("sealed + open segment read back differently")
	}
	if stats := compact(t, dir); stats.Series != 1 {
		t.Fatalf("second compaction sealed %d series, want 1", stats.Series)
	}
	if _, err := os.Stat(open); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("open segment after the second compaction: %v", err)
	}
	if got := readAll(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatal("after the second compaction, records differ")
	}
	if stats := compact(t, dir); stats.Series != 0 {
		t.Fatalf("compacting a compacted store sealed %d series", stats.Series)
	}
}

// TestCompactDeterministic checks that the same records seal to the same
// bytes (no time stamp in the gzip header), so that a committed store does
// not change when recompacted.
func TestCompactDeterministic(t *testing.T) {
	a, _ := compactStore(t)
	b, _ := compactStore(t)
	compact(t, a)
	compact(t, b)
	p := filepath.Join("SLIA%2Fname-combine-4", "mcmc-uniform"+sealedExt)
	if !bytes.Equal(must(os.ReadFile(filepath.Join(a, p))), must(os.ReadFile(filepath.Join(b, p)))) {
		t.Fatal("the same records sealed to different bytes")
	}
}

// TestCompactKilled recreates what a compaction killed at each point
// leaves, and checks that no record is lost or read twice: before the
// rename, a temporary file (ignored, and removed by the next compaction);
// between the rename and the removal, the open segment beside the sealed
// one that absorbed it (skipped by readers, removed by a writer).
func TestCompactKilled(t *testing.T) {
	dir, want := compactStore(t)
	open := filepath.Join(dir, "SLIA%2Fname-combine-4", "gcd.jsonl")
	tmp := filepath.Join(dir, "SLIA%2Fname-combine-4", ".gcd.jsonl.gz.tmp-123")
	if err := os.WriteFile(tmp, []byte("half a gzip stream"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatal("a temporary file changed what is read")
	}
	saved := must(os.ReadFile(open))
	compact(t, dir)
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("compaction left the temporary file: %v", err)
	}
	if err := os.WriteFile(open, saved, 0o644); err != nil { // killed before removing it
		t.Fatal(err)
	}
	if got := readAll(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatalf("with the absorbed open segment left:\n%+v\nwant\n%+v", got, want)
	}
	st := must(Open(dir))
	if _, err := st.Done("SLIA/name-combine-4", "gcd"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(open); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a writer kept the absorbed open segment: %v", err)
	}
	st.Close()
	// An open segment that differs from the absorbed one by a byte is
	// not a leftover: its records are read, and come twice.
	saved[len(saved)-3] ^= 1
	os.WriteFile(open, saved, 0o644)
	var ce *CorruptError
	if _, err := must(OpenReadOnly(dir)).Records("SLIA/name-combine-4", "gcd"); !errors.As(err, &ce) ||
		ce.File != open || !strings.Contains(err.Error(), "gcd.jsonl.gz:1") {
		t.Fatalf("a record both sealed and open: %v", err)
	}
}

// TestTornAfterCompact is a kill inside the first Append after a
// compaction: the open segment holds nothing but a torn line. It is dropped
// with a warning, the sealed records stay, and the next Append follows them.
func TestTornAfterCompact(t *testing.T) {
	dir, want := compactStore(t)
	compact(t, dir)
	key := Key{"SLIA/name-combine-4", "gcd"}
	st := mustOpen(t, dir, Options{})
	path := st.Path(key.Task, key.Method)
	st.Close()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("compaction left the open segment: %v", err)
	}
	next := rec(key.Task, key.Method, 1, 6)
	line := must(next.MarshalJSON())
	plantTorn(t, path, string(line[:len(line)/2]))

	var warned []Warning
	st = mustOpen(t, dir, Options{Warn: func(w Warning) { warned = append(warned, w) }})
	got := must(st.Records(key.Task, key.Method))
	if !reflect.DeepEqual(got, want[key]) || len(warned) != 1 {
		t.Fatalf("after a torn first line: %d records (want %d), warnings %v", len(got), len(want[key]), warned)
	}
	if err := st.Append(next); err != nil {
		t.Fatal(err)
	}
	st.Close()
	want[key] = append(want[key], next)
	if got := readAll(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatalf("after appending again:\n%+v\nwant\n%+v", got, want)
	}
}

// TestSealedCorrupt checks that a truncated, corrupted or non-gzip sealed
// segment is a *CorruptError naming it and the line where reading stopped.
func TestSealedCorrupt(t *testing.T) {
	dir, _ := compactStore(t)
	compact(t, dir)
	sealed := filepath.Join(dir, "BV4%2Finv", "mcmc-uniform"+sealedExt)
	good := must(os.ReadFile(sealed))
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", good[:len(good)*2/3], "truncated gzip stream"},
		{"no trailer", good[:len(good)-4], "truncated gzip stream"},
		{"flipped byte", flip(good, len(good)-6), "corrupt gzip stream"},
		{"not gzip", []byte("{\"schema\":3}\n"), "not a gzip stream"},
		{"no newline at end", gz(t, "{\"schema\":3}"), "ends inside a record"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			os.WriteFile(sealed, c.data, 0o644)
			_, err := must(OpenReadOnly(dir)).Records("BV4/inv", "mcmc-uniform")
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.File != sealed || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want a *CorruptError of %s saying %q", err, sealed, c.want)
			}
			if c.name != "not gzip" && ce.Line < 1 {
				t.Errorf("no line in %v", err)
			}
			st := must(Open(dir))
			defer st.Close()
			if _, err := st.Compact(); !errors.As(err, &ce) {
				t.Fatalf("Compact over a corrupt sealed segment: %v", err)
			}
		})
	}
}

func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0xff
	return c
}

func gz(t *testing.T, s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, s)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCompactBusy checks that Compact refuses a store another process is
// writing (a shard between appends), and leaves it as it was.
func TestCompactBusy(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no flock: a store has no writing mark")
	}
	dir, want := compactStore(t)
	w := must(Writing(dir))
	st := must(Open(dir))
	if _, err := st.Compact(); !errors.Is(err, ErrBusy) {
		t.Fatalf("Compact of a busy store: %v", err)
	}
	w.Close()
	if b, _ := Busy(dir); !b {
		t.Error("the refused compaction dropped the store's own writing mark")
	}
	if _, err := st.Compact(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if got := readAll(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatal("records differ")
	}
}
