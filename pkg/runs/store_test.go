package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func rec(task, method string, k, run int) Record {
	ids := make([]int, 3+run%5)
	for i := range ids {
		ids[i] = 1000*run + 10*k + i
	}
	return Record{
		Schema: Schema, Task: task, Method: method, K: k, Run: run, Seed: uint64(1<<60 + run),
		PromptIDs: []int{1, 2, 3}, IDs: ids, Text: fmt.Sprintf("x%d_%d \"q\"\n", k, run),
		LogP: -1.5 - float64(run), LogPGCD: -0.25, Valid: run%3 != 0, Status: StatusComplete,
		Evals: int64(7 * run), ElapsedMS: 12.5,
	}
}

func mustOpen(t *testing.T, dir string, opt Options) *Store {
	t.Helper()
	st, err := OpenWith(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcmc", "exp")
	st := mustOpen(t, dir, Options{})
	var want []Record
	for _, task := range []string{"SLIA/name-combine-4", "bv4"} {
		for _, method := range []string{"gcd", "mcmc-priority"} {
			for run := range 4 {
				r := rec(task, method, 2, run)
				if method != "gcd" {
					r.Accepted = []bool{true, false}
				}
				if run == 1 {
					r.LogPGCD = math.Inf(-1)
					r.IDs = nil
					r.Status, r.Valid = StatusRejected, false
				}
				if err := st.Append(r); err != nil {
					t.Fatal(err)
				}
				if r.IDs == nil {
					r.IDs = []int{} // read back as an empty list
				}
				want = append(want, r)
			}
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "SLIA%2Fname-combine-4", "mcmc-priority.jsonl")); err != nil {
		t.Fatal(err)
	}

	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := ro.Keys()
	if err != nil {
		t.Fatal(err)
	}
	wantKeys := []Key{{"SLIA/name-combine-4", "gcd"}, {"SLIA/name-combine-4", "mcmc-priority"}, {"bv4", "gcd"}, {"bv4", "mcmc-priority"}}
	if !reflect.DeepEqual(keys, wantKeys) {
		t.Fatalf("Keys = %v, want %v", keys, wantKeys)
	}
	got, err := ro.Records("bv4", "mcmc-priority")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want[12:16]) {
		t.Fatalf("Records =\n%+v\nwant\n%+v", got, want[12:16])
	}
	n := 0
	if err := ro.Each(func(r Record) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != len(want) {
		t.Fatalf("Each visited %d records, want %d", n, len(want))
	}
	if err := ro.Append(rec("a", "b", 0, 0)); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Append on a read-only store: %v", err)
	}
	if len(ro.Warnings()) != 0 {
		t.Fatalf("warnings: %v", ro.Warnings())
	}
}

func TestLineFormat(t *testing.T) {
	r := rec("t", "gcd", 0, 1)
	r.LogPGCD = math.Inf(-1)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "task", "method", "k", "run", "seed", "prompt_ids", "ids", "text",
		"logp", "logp_gcd", "valid", "status", "evals", "elapsed_ms"} {
		if _, ok := m[k]; !ok {
			t.Errorf("key %q missing from %s", k, b)
		}
	}
	if m["logp_gcd"] != nil {
		t.Errorf("logp_gcd = %v, want null", m["logp_gcd"])
	}
	if _, ok := m["accepted"]; ok {
		t.Errorf("accepted present without MCMC steps: %s", b)
	}
	// Unknown fields are tolerated, missing log-probabilities are not.
	var back Record
	extra := strings.Replace(string(b), `{"schema":1,`, `{"schema":1,"future":{"x":[1,2]},`, 1)
	if err := json.Unmarshal([]byte(extra), &back); err != nil {
		t.Fatal(err)
	}
	if back.LogPGCD != math.Inf(-1) || back.Run != 1 {
		t.Fatalf("decoded %+v", back)
	}
	if err := json.Unmarshal([]byte(`{"schema":1,"task":"t","method":"m","logp":-1}`), &back); err == nil {
		t.Fatal("record without logp_gcd accepted")
	}
	r.LogP = math.NaN()
	if _, err := json.Marshal(r); err == nil {
		t.Fatal("NaN log P encoded")
	}
}

func TestAppendChecks(t *testing.T) {
	st := mustOpen(t, t.TempDir(), Options{SyncEvery: -1})
	if err := st.Append(rec("t", "m", 0, 0)); err != nil {
		t.Fatal(err)
	}
	if err := st.Append(rec("t", "m", 0, 0)); !errors.Is(err, ErrExists) {
		t.Fatalf("duplicate: %v", err)
	}
	r := rec("t", "m", 1, 0)
	r.Seed++
	if err := st.Append(r); err == nil || !strings.Contains(err.Error(), "seed") {
		t.Fatalf("changed seed: %v", err)
	}
	for _, bad := range []func(*Record){
		func(r *Record) { r.Task = "" },
		func(r *Record) { r.Method = "" },
		func(r *Record) { r.K = -1 },
		func(r *Record) { r.Schema = Schema + 1 },
		func(r *Record) { r.LogP = math.NaN() },
		func(r *Record) { r.LogP = math.Inf(1) },
	} {
		r := rec("t", "m", 5, 5)
		bad(&r)
		if err := st.Append(r); err == nil {
			t.Errorf("bad record %+v accepted", r)
		}
	}
}

func TestResume(t *testing.T) {
	dir := t.TempDir()
	st := mustOpen(t, dir, Options{})
	for run := range 3 {
		for k := range 2 {
			if err := st.Append(rec("t", "mcmc", k, run)); err != nil {
				t.Fatal(err)
			}
		}
	}
	st.Close()

	st = mustOpen(t, dir, Options{})
	for run := range 4 {
		for k := range 3 {
			ok, err := st.Has("t", "mcmc", k, run)
			if err != nil {
				t.Fatal(err)
			}
			if want := run < 3 && k < 2; ok != want {
				t.Errorf("Has(k=%d, run=%d) = %v, want %v", k, run, ok, want)
			}
			if !ok {
				if err := st.Append(rec("t", "mcmc", k, run)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	done, err := st.Done("t", "mcmc")
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 12 || !done[Sample{K: 2, Run: 3}] {
		t.Fatalf("Done = %v", done)
	}
	recs, err := st.Records("t", "mcmc")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 12 {
		t.Fatalf("%d records after resume, want 12", len(recs))
	}
	if ok, err := st.Has("other", "gcd", 0, 0); ok || err != nil {
		t.Fatalf("Has on a missing series = %v, %v", ok, err)
	}
}

// appendRaw appends bytes to a series' file behind the store's back, as a
// killed writer would have.
// oneRecordStore returns a new store directory whose series t/m holds one
// record (k 0, run 0), and that series' file.
func oneRecordStore(t *testing.T) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	st := mustOpen(t, dir, Options{})
	if err := st.Append(rec("t", "m", 0, 0)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	return dir, st.Path("t", "m")
}

func appendRaw(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func TestTornLastLine(t *testing.T) {
	full, err := json.Marshal(rec("t", "m", 0, 2))
	if err != nil {
		t.Fatal(err)
	}
	for name, tail := range map[string]string{
		"half object":  string(full[:len(full)/2]),
		"no newline":   string(full),
		"record start": `{"sch`,
		"nul bytes":    "\x00\x00\x00\x00",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			st := mustOpen(t, dir, Options{})
			for run := range 2 {
				if err := st.Append(rec("t", "m", 0, run)); err != nil {
					t.Fatal(err)
				}
			}
			st.Close()
			path := st.Path("t", "m")
			before, _ := os.ReadFile(path)
			appendRaw(t, path, tail)

			// A reader drops the line and leaves the file alone.
			ro := mustOpen(t, dir, Options{ReadOnly: true})
			recs, err := ro.Records("t", "m")
			if err != nil || len(recs) != 2 {
				t.Fatalf("read-only: %d records, %v", len(recs), err)
			}
			if w := ro.Warnings(); len(w) != 1 || w[0].Line != 3 || w[0].Offset != int64(len(before)) {
				t.Fatalf("read-only warnings: %v", w)
			}
			if b, _ := os.ReadFile(path); len(b) != len(before)+len(tail) {
				t.Fatal("a read-only store modified the file")
			}

			// A writer drops it, reports it once, and appends on a fresh line.
			var warned []Warning
			st = mustOpen(t, dir, Options{Warn: func(w Warning) { warned = append(warned, w) }})
			if err := st.Append(rec("t", "m", 0, 2)); err != nil {
				t.Fatal(err)
			}
			if len(warned) != 1 || warned[0].Dropped != int64(len(tail)) || !strings.Contains(warned[0].String(), "m.jsonl:3:") {
				t.Fatalf("warnings: %v", warned)
			}
			recs, err = st.Records("t", "m")
			if err != nil || len(recs) != 3 || recs[2].Run != 2 {
				t.Fatalf("after append: %d records, %v", len(recs), err)
			}
			st.Close()
			b, _ := os.ReadFile(path)
			if !strings.HasPrefix(string(b), string(before)) || strings.Count(string(b), "\n") != 3 {
				t.Fatalf("file after recovery:\n%s", b)
			}
			ro = mustOpen(t, dir, Options{ReadOnly: true})
			if recs, err := ro.Records("t", "m"); err != nil || len(recs) != 3 || len(ro.Warnings()) != 0 {
				t.Fatalf("reread: %d records, %v, warnings %v", len(recs), err, ro.Warnings())
			}
		})
	}
}

func TestCorruptMiddleLine(t *testing.T) {
	for name, line := range map[string]string{
		"garbage":      "not json\n",
		"empty":        "\n",
		"other series": string(must(json.Marshal(rec("u", "m", 0, 9)))) + "\n",
		"newer schema": strings.Replace(string(must(json.Marshal(rec("t", "m", 0, 9)))), fmt.Sprintf(`"schema":%d`, Schema), `"schema":99`, 1) + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir, path := oneRecordStore(t)
			appendRaw(t, path, line)
			appendRaw(t, path, string(must(json.Marshal(rec("t", "m", 0, 1))))+"\n")

			ro := mustOpen(t, dir, Options{ReadOnly: true})
			_, err := ro.Records("t", "m")
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Line != 2 || !strings.Contains(err.Error(), path+":2:") {
				t.Fatalf("Records: %v, want a CorruptError at %s:2", err, path)
			}
			if err := ro.Each(func(Record) error { return nil }); !errors.As(err, &ce) {
				t.Fatalf("Each: %v", err)
			}
			st := mustOpen(t, dir, Options{})
			if err := st.Append(rec("t", "m", 0, 2)); !errors.As(err, &ce) {
				t.Fatalf("Append to a corrupt series: %v", err)
			}
			if b, _ := os.ReadFile(path); strings.Count(string(b), "\n") != 3 {
				t.Fatal("a corrupt file was modified")
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestLock(t *testing.T) {
	dir := t.TempDir()
	st := mustOpen(t, dir, Options{})
	_, err := Open(dir)
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) || le.PID != os.Getpid() {
		t.Fatalf("second writer: %v", err)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("error does not name the holder: %v", err)
	}
	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatalf("reader blocked by a writer: %v", err)
	}
	ro.Close()
	st.Close()
	st2, err := Open(dir)
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	st2.Close()
}

func TestMissingExperiment(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nope")
	_, err := OpenReadOnly(dir)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("OpenReadOnly of a missing experiment: %v", err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("OpenReadOnly created the directory")
	}
	st := mustOpen(t, filepath.Join(dir, "deeper"), Options{})
	if keys, err := st.Keys(); err != nil || len(keys) != 0 {
		t.Fatalf("Keys of a new store: %v, %v", keys, err)
	}
}

func TestEscape(t *testing.T) {
	names := []string{"gcd", "SLIA/name-combine-4", ".", "..", ".hidden", "a.b", "a%2Fb", "a/b", "π ü", "mix-0.5", ""}
	seen := map[string]string{}
	for _, n := range names {
		e := escape(n)
		if strings.ContainsAny(e, "/\\ ") || e == "." || e == ".." || strings.HasPrefix(e, ".") {
			t.Errorf("escape(%q) = %q is not a safe path element", n, e)
		}
		if prev, ok := seen[e]; ok {
			t.Errorf("escape(%q) = escape(%q) = %q", n, prev, e)
		}
		seen[e] = n
		if back, err := unescape(e); err != nil || back != n {
			t.Errorf("unescape(%q) = %q, %v; want %q", e, back, err, n)
		}
	}
	for _, bad := range []string{"%", "%4", "%zz"} {
		if _, err := unescape(bad); err == nil {
			t.Errorf("unescape(%q) succeeded", bad)
		}
	}
}

func TestSyncEvery(t *testing.T) {
	dir := t.TempDir()
	st := mustOpen(t, dir, Options{SyncEvery: 4})
	for run := range 10 {
		if err := st.Append(rec("t", "m", 0, run)); err != nil {
			t.Fatal(err)
		}
	}
	if st.unsynced != 2 {
		t.Fatalf("%d records await a sync, want 2", st.unsynced)
	}
	if err := st.Sync(); err != nil || st.unsynced != 0 {
		t.Fatal(err, st.unsynced)
	}
}

func TestConcurrentAppend(t *testing.T) {
	st := mustOpen(t, t.TempDir(), Options{SyncEvery: 8})
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for run := range 50 {
				if err := st.Append(rec(fmt.Sprint("task", g%2), fmt.Sprint("m", g), 0, run)); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	err := st.Each(func(r Record) error {
		n++
		if ok, err := st.Has(r.Task, r.Method, r.K, r.Run); !ok || err != nil { // fn may use the store
			return fmt.Errorf("Has(%v) = %v, %v", r, ok, err)
		}
		return nil
	})
	if err != nil || n != 400 {
		t.Fatalf("Each: %d records, %v", n, err)
	}
}
