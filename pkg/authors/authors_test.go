package authors

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/analysis"
	"github.com/gasplab/gasp/pkg/runs"
	"github.com/gasplab/gasp/pkg/runs/runstest"
)

const (
	fixtures = "testdata/runs_log"
	taskRoot = "../../data/gad"
)

func importFixtures(t *testing.T) (string, Summary) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "store")
	sum, err := Import("testdata", out, Options{TaskRoot: taskRoot})
	if err != nil {
		t.Fatal(err)
	}
	return out, sum
}

func readStore(t *testing.T, dir string) map[string][]runs.Record {
	t.Helper()
	out := map[string][]runs.Record{}
	for _, r := range runstest.Records(t, dir) {
		out[r.Task+" "+r.Method] = append(out[r.Task+" "+r.Method], r)
	}
	return out
}

func TestImportFixtures(t *testing.T) {
	out, sum := importFixtures(t)
	// 2 tasks of model 1 × (3 MCMC styles × 3 chains + rs 2 + ars 2 + rsft 2
	// + cars 3 files); skipped: notes.txt, the fuzzing task, the model-2 task,
	// the oldcars directory and the unfinished cars run.
	if sum.Tasks != 2 || sum.Files != 2*18 || len(sum.Skipped) != 5 {
		t.Errorf("summary %+v", sum)
	}
	for _, want := range []string{"notes.txt: not a task directory", "fuzzing-json-generate_json-42128c9b-1: task fuzzing-json-generate_json is not under the task root",
		"SLIA_lastname-12345678-2: model index 2 (Qwen/Qwen2.5-7B-Instruct), not 1", "oldcars-2025-01-17_10-00-00: not a style directory",
		"n6.json.tmp: an unfinished run"} {
		if !slices.ContainsFunc(sum.Skipped, func(s Skip) bool { return strings.Contains(s.String(), want) }) {
			t.Errorf("skipped %v: nothing like %q", sum.Skipped, want)
		}
	}
	recs := readStore(t, out)
	task := "SLIA/name-combine-4_short"
	chains := recs[task+" mcmc-restart"]
	if len(chains) != 12 || len(recs["BV4/find_inv_eq_bvand_4bit mcmc-uniform"]) != 12 {
		t.Fatalf("series %d", len(chains))
	}
	r0 := chains[0]
	if r0.K != 0 || r0.Run != 0 || r0.EOS == runs.NoEOS || !r0.Valid || r0.Status != runs.StatusComplete || r0.Proposal != nil {
		t.Errorf("restart run 0 k=0: %+v", r0)
	}
	// GCD is the restart chains' starts.
	gcd := recs[task+" gcd"]
	if len(gcd) != 3 {
		t.Fatalf("%d gcd records", len(gcd))
	}
	for i, g := range gcd {
		s := chains[4*i]
		if g.K != 0 || g.Run != i || s.K != 0 || !slices.Equal(g.IDs, s.IDs) || g.EOS != s.EOS || g.LogP != s.LogP || g.Accepted != nil {
			t.Errorf("gcd %d = %+v, restart start %+v", i, g, s)
		}
	}
	// Every record and proposal: the EOS kept apart, "ab" with either.
	eos := map[int]bool{}
	for _, rs := range recs {
		for _, r := range rs {
			if (r.EOS != runs.NoEOS) != (r.Status == runs.StatusComplete) {
				t.Errorf("%s %s k=%d run=%d: status %s, eos %d", r.Task, r.Method, r.K, r.Run, r.Status, r.EOS)
			}
			if slices.Equal(r.IDs, []int{10, 11}) {
				eos[r.EOS] = true
			}
		}
	}
	if !eos[128009] || !eos[128001] {
		t.Errorf("\"ab\" ended by %v; the fixtures have both EOS", eos)
	}
	meta, err := os.ReadFile(filepath.Join(out, MetadataFile))
	if err != nil || !strings.Contains(string(meta), `"model": "meta-llama/Llama-3.1-8B-Instruct"`) || !strings.Contains(string(meta), "oldcars") {
		t.Errorf("%s: %v\n%s", MetadataFile, err, meta)
	}
}

// TestImportRejectionTypes checks the records of the rejection-type styles
// against the fixtures' files: "steps" holds the samples of the successful
// attempts only.
func TestImportRejectionTypes(t *testing.T) {
	out, _ := importFixtures(t)
	recs := readStore(t, out)
	const task, dir = "SLIA/name-combine-4_short", "testdata/runs_log/SLIA_name_combine_4_short-dcfc47e5-1"
	for style, method := range map[string]string{"rs": "rejection", "ars": "ars", "rsft": "rsft", "cars": "cars"} {
		files, _ := filepath.Glob(filepath.Join(dir, style+"-*", "*.json"))
		var want []runs.Record // what the files say, in gasp's form
		for _, f := range files {
			var doc struct {
				Steps []struct {
					TokenIDs []int `json:"token_ids"`
				}
				Successes []bool
			}
			b, _ := os.ReadFile(f)
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			next, failures := 0, int64(0)
			for _, ok := range doc.Successes {
				switch {
				case ok:
					ids := doc.Steps[next].TokenIDs
					next++
					r := runs.Record{IDs: ids[:len(ids)-1], Valid: true, Status: runs.StatusComplete, Rejections: failures}
					if method == "rejection" {
						r.Rejections = 0
					}
					want, failures = append(want, r), 0
				case method == "rejection":
					want = append(want, runs.Record{IDs: []int{}, Status: runs.StatusRejected})
				default:
					failures++
				}
			}
			if failures > 0 {
				want = append(want, runs.Record{IDs: []int{}, Status: runs.StatusRejected, Rejections: failures})
			}
		}
		got := recs[task+" "+method]
		if len(got) != len(want) {
			t.Fatalf("%s: %d records, want %d", method, len(got), len(want))
		}
		for i, r := range got {
			w := want[i]
			if r.Run != i || r.K != 0 || !slices.Equal(r.IDs, w.IDs) || r.Valid != w.Valid || r.Status != w.Status || r.Rejections != w.Rejections {
				t.Errorf("%s run %d: %+v, want ids %v valid %v status %s rejections %d", method, i, r, w.IDs, w.Valid, w.Status, w.Rejections)
			}
		}
	}
}

// The chain a file describes: state k+1 is the proposal of step k if
// accepted, else state k.
func TestImportChainsConsistent(t *testing.T) {
	out, _ := importFixtures(t)
	for key, rs := range readStore(t, out) {
		if !strings.Contains(key, "mcmc-") {
			continue
		}
		for i := 1; i < len(rs); i++ {
			r, prev := rs[i], rs[i-1]
			if r.K == 0 {
				continue
			}
			want := prev.IDs
			if r.Proposal.Accepted {
				want = r.Proposal.IDs
			}
			if !slices.Equal(r.IDs, want) || len(r.Accepted) != r.K || r.Accepted[r.K-1] != r.Proposal.Accepted {
				t.Errorf("%s run %d k=%d: %v, want %v", key, r.Run, r.K, r.IDs, want)
			}
		}
	}
}

// gasp analyze's computation runs on the import under both protocols; the
// authors' S holds the proposals.
func TestAnalyzeImport(t *testing.T) {
	out, _ := importFixtures(t)
	st, err := runs.OpenReadOnly(out)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d, err := analysis.Load(st)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.AnalyzeBoth(d, analysis.Options{Seed: 1, Resamples: 50, Protocol: analysis.Authors})
	if err != nil {
		t.Fatal(err)
	}
	complete := map[string]int{} // task → proposals that emitted an EOS
	for _, rs := range readStore(t, out) {
		for _, r := range rs {
			if r.Proposal != nil && r.Proposal.Status == runs.StatusComplete {
				complete[r.Task]++
			}
		}
	}
	for i, tr := range rep.Tasks {
		g := rep.Peer.Tasks[i]
		// gasp: "ab"·eot, "ab"·eot-text, "c", "def" as the fixtures' states;
		// authors also x (P = 0), only ever proposed.
		if tr.Proposals != complete[tr.Task] || g.Proposals != 0 || g.Size != 4 || tr.Size != 5 {
			t.Errorf("%s: authors |S| %d (%d proposals), gasp |S| %d", tr.Task, tr.Size, tr.Proposals, g.Size)
		}
		if tr.GCDFrom != "mcmc-restart k=0" {
			t.Errorf("%s: GCD from %q", tr.Task, tr.GCDFrom)
		}
	}
	if len(rep.Ratios) != 3 {
		t.Errorf("ratios %+v", rep.Ratios)
	}
}

// copyFixtures copies the fixtures to a temporary runs_log to break.
func copyFixtures(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "runs_log")
	if err := os.CopyFS(dst, os.DirFS(fixtures)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestImportSkips breaks one file or directory at a time: the import goes
// on without it and names it with the reason; with Strict it is an error and
// nothing is written.
func TestImportSkips(t *testing.T) {
	const task = "SLIA_name_combine_4_short-dcfc47e5-1"
	restart := filepath.Join(task, "restart-2025-01-17_10-00-00", "2025-01-17_10-00-00-000001-n3.json")
	cars := filepath.Join(task, "cars-2025-01-17_10-00-00", "2025-01-17_10-00-00-000000-n6.json")
	edit := func(rel, old, new string) func(string) error {
		return func(dir string) error {
			b, err := os.ReadFile(filepath.Join(dir, rel))
			if err != nil {
				return err
			}
			if !strings.Contains(string(b), old) {
				return fmt.Errorf("%s has no %q", rel, old)
			}
			return os.WriteFile(filepath.Join(dir, rel), []byte(strings.Replace(string(b), old, new, 1)), 0o644)
		}
	}
	cases := []struct {
		name    string
		breakIt func(dir string) error
		skipped string   // the path skipped
		reason  []string // in its reason
	}{
		{"truncated file", func(dir string) error {
			b, _ := os.ReadFile(filepath.Join(dir, restart))
			return os.WriteFile(filepath.Join(dir, restart), b[:len(b)/2], 0o644)
		}, restart, []string{"unexpected end"}},
		{"NaN", edit(restart, "-0.9", "NaN"), restart, []string{"line ", "column", "NaN"}},
		{"wrong type", edit(restart, `"accepted": false`, `"accepted": "no"`), restart, []string{"line ", "column"}},
		{"missing logprob", edit(restart, `"raw_logprob"`, `"logprob"`), restart, []string{"missing raw_logprob"}},
		{"inconsistent chain", edit(restart, `"accepted": false`, `"accepted": true`), restart, []string{"not the outcome of step"}},
		{"positive log-probability", edit(cars, `"raw_logprob": -`, `"raw_logprob": 1e+31, "x": -`), cars, []string{"is not a log-probability"}},
		{"more samples than successes", edit(cars, `"successes": [`, `"successes": [false, `), "", nil},
		{"fewer samples than successes", edit(cars, `"successes": [`, `"successes": [true, `), cars, []string{"successful attempts but", "samples"}},
		{"no successes", edit(cars, `"successes"`, `"succeeded"`), cars, []string{`want "steps" and "successes"`}},
		{"unknown task", func(dir string) error {
			return os.Rename(filepath.Join(dir, task), filepath.Join(dir, "SLIA_no_such_task-dcfc47e5-1"))
		}, "SLIA_no_such_task-dcfc47e5-1", []string{"task SLIA_no_such_task is not under the task root"}},
		{"unknown style", func(dir string) error {
			return os.Rename(filepath.Join(dir, task, "rs-2025-01-17_10-00-00"), filepath.Join(dir, task, "smc-2025-01-17_10-00-00"))
		}, "smc-2025-01-17_10-00-00", []string{"not a style directory"}},
		{"file among the runs", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, task, "rs-2025-01-17_10-00-00", "notes.md"), []byte("x"), 0o644)
		}, "notes.md", []string{"not a run file"}},
	}
	base, _ := importFixtures(t)
	baseRecs := len(runstest.Records(t, base))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyFixtures(t)
			if err := c.breakIt(dir); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "store")
			sum, err := Import(dir, out, Options{TaskRoot: taskRoot})
			if err != nil {
				t.Fatal(err)
			}
			extra := sum.Skipped[:0:0]
			for _, s := range sum.Skipped {
				if c.skipped != "" && strings.HasSuffix(s.Path, c.skipped) {
					for _, w := range c.reason {
						if !strings.Contains(s.Reason, w) {
							t.Errorf("skipped %s: reason %q lacks %q", s.Path, s.Reason, w)
						}
					}
					extra = append(extra, s)
				}
			}
			if c.skipped == "" {
				// The writer's own invariant broken the harmless way: a failed
				// attempt more. Imported, one more rejection counted.
				if len(sum.Skipped) != 5 {
					t.Errorf("skipped %v", sum.Skipped)
				}
				return
			}
			if len(extra) != 1 {
				t.Errorf("skipped %v: want %s once", sum.Skipped, c.skipped)
			}
			if n := len(runstest.Records(t, out)); n == 0 || n > baseRecs {
				t.Errorf("%d records imported, fixtures %d", n, baseRecs)
			}
			// Strict: an error naming it, nothing written.
			parent := t.TempDir()
			_, err = Import(dir, filepath.Join(parent, "store"), Options{TaskRoot: taskRoot, Strict: true})
			if err == nil || !strings.Contains(err.Error(), c.skipped) {
				t.Errorf("strict: %v", err)
			}
			if left, _ := os.ReadDir(parent); len(left) != 0 {
				t.Errorf("strict left %v", left)
			}
		})
	}
	// Nothing importable: an error, nothing written.
	parent := t.TempDir()
	if _, err := Import("testdata", filepath.Join(parent, "s"), Options{TaskRoot: taskRoot, Model: 3, EOS: []int{151645}}); err == nil ||
		!strings.Contains(err.Error(), "nothing of model 3 could be imported") || !strings.Contains(err.Error(), "SLIA_lastname-12345678-2: model index 2") {
		t.Errorf("model 3: %v", err)
	}
	if _, err := Import("testdata", filepath.Join(parent, "s"), Options{TaskRoot: taskRoot, Model: 2}); err == nil ||
		!strings.Contains(err.Error(), "give its end-of-sequence ids") {
		t.Errorf("model 2 without EOS: %v", err)
	}
	if left, _ := os.ReadDir(parent); len(left) != 0 {
		t.Errorf("left %v", left)
	}
	// An existing output is refused, and left alone.
	out := t.TempDir()
	if _, err := Import("testdata", out, Options{TaskRoot: taskRoot}); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("existing output: %v", err)
	}
}

// copyTree copies the directory src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A model index that does not fit an int is an error naming the task
// directory, not MaxInt (strconv.Atoi's value on overflow): whatever model
// is imported, the largest int included (issue 33 F37).
func TestImportModelIndexOverflow(t *testing.T) {
	for _, model := range []int{1, math.MaxInt} {
		logs := filepath.Join(t.TempDir(), "runs_log")
		copyTree(t, fixtures, logs)
		bad := filepath.Join(logs, "SLIA_lastname-12345678-99999999999999999999")
		if err := os.Rename(filepath.Join(logs, "SLIA_lastname-12345678-2"), bad); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "store")
		// Strict: what a tolerant import would skip (and list) is an error.
		_, err := Import(logs, out, Options{TaskRoot: taskRoot, Model: model, EOS: Llama31EOS(), Strict: true})
		want := bad + ": model index 99999999999999999999 is out of range"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--model %d: err = %v, want %q", model, err, want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("--model %d: a refused import left %s", model, out)
		}
	}
}

// An invalid log-probability is located in the file, not in the value
// (encoding/json reports a custom UnmarshalJSON's inner offsets): a
// string, a number beyond float64, an object, on the first line or a
// later one (issue 33 F38).
func TestDecodeLogProbPosition(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`{"steps": [{"tokens": ["a"], "token_ids": [1], "raw_logprob": "abc", "cons_logprob": -1}]}`, "line 1, column 63: json: cannot unmarshal string into Go struct field sample.steps.raw_logprob"},
		{`{"steps": [{"tokens": ["a"], "token_ids": [1], "raw_logprob": -1e999, "cons_logprob": -1}]}`, "line 1, column 63:"},
		{"{\"steps\": [\n {\"raw_logprob\": -1,\n  \"cons_logprob\": {\"x\": 1}}]}", "line 3, column 19:"},
		{`{"steps": [{"raw_logprob": -1, "cons_logprob": -2}, {"tokens": ["cons_logprob"], "raw_logprob": [1]}]}`, "line 1, column 97:"},
	} {
		var f struct {
			Steps []*sample `json:"steps"`
		}
		err := decode([]byte(c.text), &f)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.text, err, c.want)
		}
	}
}

// An output path with a trailing slash (or another unclean spelling) names
// the same store as without: the import writes it and leaves nothing else
// (issue 33 F39).
func TestImportOutTrailingSlash(t *testing.T) {
	for _, suffix := range []string{"/", "//", "/."} {
		parent := t.TempDir()
		out := filepath.Join(parent, "slash")
		if _, err := Import("testdata", out+suffix, Options{TaskRoot: taskRoot}); err != nil {
			t.Errorf("--out %q: %v", out+suffix, err)
			continue
		}
		entries, _ := os.ReadDir(parent)
		if len(entries) != 1 || entries[0].Name() != "slash" {
			t.Errorf("--out %q: %s holds %v, want the store slash alone", out+suffix, parent, entries)
		}
		if _, err := os.Stat(filepath.Join(out, "experiment.json")); err != nil && len(readStore(t, out)) == 0 {
			t.Errorf("--out %q: no store at %s", out+suffix, out)
		}
	}
}

// The temporary directory of an import that was killed is removed by the
// next import into the same store, which says so; that of an import still
// running is left alone, and the next import refused; other directories
// are not touched (issue 33 F46).
func TestImportLeftover(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "s")
	dead := filepath.Join(parent, ".s.import-123")
	other := filepath.Join(parent, ".t.import-9")
	for _, d := range []string{dead, other} {
		writeFile(t, filepath.Join(d, "SLIA%2Fx", "gcd.jsonl"), "{\"schema\":")
	}
	sum, err := Import("testdata", out, Options{TaskRoot: taskRoot})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sum.Removed, []string{dead}) {
		t.Errorf("Removed = %q, want %q", sum.Removed, dead)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("%s left: %v", dead, err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("%s, of another store, removed: %v", other, err)
	}
	if !canLockDir {
		return
	}
	live := filepath.Join(parent, ".u.import-5")
	writeFile(t, filepath.Join(live, "x"), "x")
	unlock, err := holdDir(live) // as a running import holds it
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	u := filepath.Join(parent, "u")
	_, err = Import("testdata", u, Options{TaskRoot: taskRoot})
	want := live + ": the temporary directory of an import into " + u + " that is still running"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
	if _, err := os.Stat(filepath.Join(live, "x")); err != nil {
		t.Errorf("a live import's directory touched: %v", err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
