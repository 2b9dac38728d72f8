package authors

import (
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
	// 2 tasks of model 1 × (3 MCMC styles × 3 chains + 2 styles × 2 runs);
	// the model-2 task is skipped.
	if sum.Tasks != 2 || sum.Files != 26 || len(sum.Skipped) != 1 || !strings.HasSuffix(sum.Skipped[0], "SLIA_lastname-12345678-2") {
		t.Errorf("summary %+v", sum)
	}
	// Per task: 9 chains × 4 states, 4 runs × 3 steps, 3 GCD starts.
	if sum.Records != 2*(36+12+3) {
		t.Errorf("%d records", sum.Records)
	}
	recs := readStore(t, out)
	task := "SLIA/name-combine-4_short"
	chains := recs[task+" mcmc-restart"]
	if len(chains) != 12 || len(recs["BV4/find_inv_eq_bvand_4bit mcmc-uniform"]) != 12 {
		t.Fatalf("series %d", len(chains))
	}
	// The fixture's restart run 0 starts at "c", proposes x (P = 0,
	// rejected) first.
	r0 := chains[0]
	if r0.K != 0 || r0.Run != 0 || !slices.Equal(r0.IDs, []int{12}) || r0.EOS != 128009 || r0.Text != "c" ||
		r0.LogP != -0.9 || r0.LogPGCD != -1.2 || !r0.Valid || r0.Status != runs.StatusComplete || r0.Proposal != nil {
		t.Errorf("restart run 0 k=0: %+v", r0)
	}
	r1 := chains[1]
	if p := r1.Proposal; p == nil || !slices.Equal(p.IDs, []int{16}) || !math.IsInf(p.LogP, -1) || p.Accepted || r1.Accepted[0] {
		t.Errorf("restart run 0 k=1: %+v proposal %+v", r1, r1.Proposal)
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
			if (r.EOS != runs.NoEOS) != (r.Status == runs.StatusComplete || (r.Status == runs.StatusRejected && r.EOS != runs.NoEOS)) {
				t.Errorf("%s %s k=%d run=%d: status %s, eos %d", r.Task, r.Method, r.K, r.Run, r.Status, r.EOS)
			}
			if slices.Equal(r.IDs, []int{10, 11}) {
				eos[r.EOS] = true
			}
			if slices.Equal(r.IDs, []int{10, 11, 12}) && (r.Valid || r.EOS != runs.NoEOS) {
				t.Errorf("the capped sample: %+v", r)
			}
		}
	}
	if !eos[128009] || !eos[128001] {
		t.Errorf("\"ab\" ended by %v; the fixtures have both EOS", eos)
	}
	// Rejection-type: k = 1…3, the failures rejected.
	for _, r := range recs[task+" rejection"] {
		if r.K < 1 || r.K > 3 || (r.Status == runs.StatusRejected) == r.Valid {
			t.Errorf("rejection %+v", r)
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

func TestImportErrors(t *testing.T) {
	const task = "SLIA_name_combine_4_short-dcfc47e5-1"
	restart := filepath.Join(task, "restart-2025-01-17_10-00-00", "2025-01-17_10-00-00-n1.json")
	cases := []struct {
		name    string
		breakIt func(dir string) error
		want    []string // in the error
	}{
		{"truncated file", func(dir string) error {
			b, _ := os.ReadFile(filepath.Join(dir, restart))
			return os.WriteFile(filepath.Join(dir, restart), b[:len(b)/2], 0o644)
		}, []string{restart, "unexpected end"}},
		{"NaN", func(dir string) error {
			b, _ := os.ReadFile(filepath.Join(dir, restart))
			b = []byte(strings.Replace(string(b), "-0.9", "NaN", 1))
			return os.WriteFile(filepath.Join(dir, restart), b, 0o644)
		}, []string{restart, "line 1, column", "NaN"}},
		{"wrong type", func(dir string) error {
			b, _ := os.ReadFile(filepath.Join(dir, restart))
			b = []byte(strings.Replace(string(b), `"accepted": false`, `"accepted": "no"`, 1))
			return os.WriteFile(filepath.Join(dir, restart), b, 0o644)
		}, []string{restart, "line 1, column"}},
		{"missing logprob", func(dir string) error {
			b, _ := os.ReadFile(filepath.Join(dir, restart))
			b = []byte(strings.Replace(string(b), `"raw_logprob"`, `"logprob"`, 1))
			return os.WriteFile(filepath.Join(dir, restart), b, 0o644)
		}, []string{restart, "missing raw_logprob"}},
		{"inconsistent chain", func(dir string) error {
			b, _ := os.ReadFile(filepath.Join(dir, restart))
			b = []byte(strings.Replace(string(b), `"accepted": false`, `"accepted": true`, 1))
			return os.WriteFile(filepath.Join(dir, restart), b, 0o644)
		}, []string{restart, "not the outcome of step"}},
		{"unknown task", func(dir string) error {
			return os.Rename(filepath.Join(dir, task), filepath.Join(dir, "SLIA_no_such_task-dcfc47e5-1"))
		}, []string{"SLIA_no_such_task-dcfc47e5-1", "unknown task SLIA_no_such_task"}},
		{"unknown style", func(dir string) error {
			return os.Rename(filepath.Join(dir, task, "rs-2025-01-17_10-00-00"), filepath.Join(dir, task, "smc-2025-01-17_10-00-00"))
		}, []string{"smc-2025-01-17_10-00-00", "not a style directory"}},
		{"rejection lengths", func(dir string) error {
			p := filepath.Join(dir, task, "rs-2025-01-17_10-00-00", "2025-01-17_10-00-00-n0.json")
			b, _ := os.ReadFile(p)
			b = []byte(strings.Replace(string(b), `"successes": [`, `"successes": [true, `, 1))
			return os.WriteFile(p, b, 0o644)
		}, []string{"rs-2025-01-17_10-00-00", "3 steps and 4 successes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyFixtures(t)
			if err := c.breakIt(dir); err != nil {
				t.Fatal(err)
			}
			parent := t.TempDir()
			out := filepath.Join(parent, "store")
			_, err := Import(dir, out, Options{TaskRoot: taskRoot})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			// Nothing written, no temporary left.
			if left, _ := os.ReadDir(parent); len(left) != 0 {
				t.Errorf("left %v", left)
			}
		})
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
		_, err := Import(logs, out, Options{TaskRoot: taskRoot, Model: model})
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
	unlock, err := lockDir(live)
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
