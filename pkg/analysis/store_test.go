package analysis

import (
	"bytes"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/exact"
	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/outdir"
	"github.com/gasplab/gasp/pkg/runs"
	"github.com/gasplab/gasp/pkg/sample"
)

var update = flag.Bool("update", false, "regenerate testdata/store from the exact toys")

// storeDir is a small synthetic run store: the samplers run on the exact
// toy problems of pkg/exact (3 tasks, every method, 20 runs, k ≤ 3).
const storeDir = "testdata/store"

// TestUpdateStore regenerates testdata/store with -update.
func TestUpdateStore(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate " + storeDir)
	}
	if err := os.RemoveAll(storeDir); err != nil {
		t.Fatal(err)
	}
	st, err := runs.Open(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(storeDir, "LOCK")) // readers need none
	}()
	toys, err := exact.Toys()
	if err != nil {
		t.Fatal(err)
	}
	const n, K = 20, 3
	for ti, toy := range toys {
		task := "toy/" + toy.Name
		rands := func(m int) ([]*rand.Rand, []uint64) {
			rs, seeds := make([]*rand.Rand, n), make([]uint64, n)
			for i := range rs {
				seeds[i] = sample.DeriveSeed(uint64(100*ti+m), i)
				rs[i] = sample.NewRand(seeds[i])
			}
			return rs, seeds
		}
		add := func(method string, k, run int, seed uint64, r *sample.Record, acc []bool) {
			ids, eos := r.Tokens, runs.NoEOS
			if r.Status == sample.Complete {
				ids, eos = ids[:len(ids)-1], ids[len(ids)-1]
			}
			rec := runs.Record{Task: task, Method: method, K: k, Run: run, Seed: seed, PromptIDs: toy.Prompt,
				IDs: ids, EOS: eos, Text: r.Text(toy.Vocab), LogP: r.LogProb(), LogPGCD: r.LogQProb(), Valid: r.Valid(),
				Status: r.Status.String(), Accepted: acc, Evals: int64(r.Evals), ElapsedMS: 1}
			if err := st.Append(rec); err != nil {
				t.Fatal(err)
			}
		}
		cfg := toy.Config
		rs, seeds := rands(0)
		recs, _, err := cfg.GCDEach(toy.Model, toy.Prompt, rs)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range recs {
			add(GCD, 0, i, seeds[i], r, nil)
		}
		rs, seeds = rands(1)
		recs, _, err = cfg.RejectionEach(toy.Model, toy.Prompt, 1, rs)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range recs {
			add(Rejection, 0, i, seeds[i], r, nil)
		}
		rs, seeds = rands(2)
		all, _, err := cfg.ASApEach(toy.Model, toy.Prompt, K, rs)
		if err != nil {
			t.Fatal(err)
		}
		for i, run := range all {
			for j, r := range run {
				add(ASAp, j+1, i, seeds[i], r, nil)
			}
		}
		for j, m := range []string{"mcmc-uniform", "mcmc-priority", "mcmc-restart"} {
			p := []mcmc.Proposal{mcmc.Uniform{}, mcmc.Priority{}, mcmc.Restart{}}[j]
			rs, seeds = rands(3 + j)
			res, err := mcmc.RunEach(toy.Model, toy.Prompt, mcmc.Config{Sample: cfg, Proposal: p, Steps: K}, rs)
			if err != nil {
				t.Fatal(err)
			}
			for i := range res.Chains {
				c := &res.Chains[i]
				for k := 0; k <= K; k++ {
					var acc []bool
					for _, s := range c.Steps[:k] {
						acc = append(acc, s.Accepted)
					}
					add(m, k, i, seeds[i], c.At(k), acc)
				}
			}
		}
	}
}

func loadStore(t *testing.T) *Data {
	t.Helper()
	d, err := LoadDirs(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestAnalyzeStore(t *testing.T) {
	d := loadStore(t)
	if got := d.Tasks(); !slices.Equal(got, []string{"toy/forced", "toy/skew", "toy/twoeos", "toy/utf8"}) {
		t.Fatalf("tasks %v", got)
	}
	rep, err := Analyze(d, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Every point is the estimator on its records, inside its interval.
	for _, tr := range rep.Tasks {
		ref := NewReference(d.TaskRecords(tr.Task))
		if tr.Size != ref.Size() {
			t.Errorf("%s: size %d vs %d", tr.Task, tr.Size, ref.Size())
		}
		for _, s := range tr.Series {
			for _, p := range s.Points {
				kl, err := ref.KL(d.Records(tr.Task, s.Method, p.K))
				if err != nil || kl != p.KL {
					t.Errorf("%s %s k=%d: KL %v, want %v (%v)", tr.Task, s.Method, p.K, p.KL, kl, err)
				}
				if !(p.Lo <= p.KL+1e-12 && p.KL <= p.Hi+1e-12) && p.Valid > 1 {
					// The plug-in estimate may lie outside a percentile interval
					// only when resampling cannot reproduce its spread; flag it.
					t.Logf("%s %s k=%d: KL %v outside [%v, %v]", tr.Task, s.Method, p.K, p.KL, p.Lo, p.Hi)
				}
			}
		}
	}
	// The mean series is the mean of the task points.
	for _, s := range rep.Mean {
		for _, p := range s.Points {
			sum, n := 0.0, 0
			for i := range rep.Tasks {
				if ts, ok := rep.Tasks[i].Method(s.Method); ok {
					if q, ok := ts.At(p.K); ok {
						sum += q.KL
						n++
					}
				}
			}
			if n != p.Runs || math.Abs(sum/float64(n)-p.KL) > 1e-12 {
				t.Errorf("mean %s k=%d: %v over %d, want %v over %d", s.Method, p.K, p.KL, p.Runs, sum/float64(n), n)
			}
		}
	}
	if len(rep.Ratios) != 3 || len(rep.Accept) != 4 {
		t.Fatalf("ratios %v, acceptance %v", rep.Ratios, rep.Accept)
	}
	for _, a := range rep.Accept {
		if a.Attempts != 20 {
			t.Errorf("%s: %d attempts", a.Task, a.Attempts)
		}
	}
	for _, r := range rep.Ratios {
		if r.K != 3 || r.NGCD+r.Skipped < 3 {
			t.Errorf("ratio %+v", r)
		}
	}
}

// TestFilesDeterministic renders the store twice, through two separate
// loads and analyses, and compares the bytes; WriteDir writes exactly them.
func TestFilesDeterministic(t *testing.T) {
	render := func() map[string][]byte {
		rep, err := Analyze(loadStore(t), Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		files, err := rep.Files("toy")
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	a, b := render(), render()
	for _, name := range []string{"README.md", "kl.csv", "kl_mean.csv", "kl_final.csv", "geomean.csv",
		"monotonicity.csv", "rejection.csv", "kl_mean.svg", "kl/toy_skew.svg", "scatter_gcd.svg", "scatter_asap.svg"} {
		if len(a[name]) == 0 {
			t.Errorf("%s missing or empty", name)
		}
	}
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s differs between renderings", name)
		}
	}
	if !bytes.HasPrefix(a["kl_mean.svg"], []byte("<?xml")) || !bytes.Contains(a["kl_mean.svg"], []byte("<svg")) {
		t.Error("kl_mean.svg is not SVG")
	}
	if !strings.Contains(string(a["README.md"]), "| mcmc-restart | 3 |") {
		t.Errorf("README.md lacks the geomean row:\n%s", a["README.md"])
	}

	// A figure of an earlier rendering (listed in the directory's
	// manifest) goes; a file gasp did not write stays, even a figure.
	dir := t.TempDir()
	stale := filepath.Join(dir, "kl", "old.svg")
	if _, err := outdir.Write(dir, map[string][]byte{"kl/old.svg": []byte("x")}); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(dir, "kl", "mine.svg")
	os.WriteFile(keep, []byte("x"), 0o644)
	rep, err := Analyze(loadStore(t), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteDir(dir, "toy"); err != nil {
		t.Fatal(err)
	}
	for name, want := range a {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: written file differs (%v)", name, err)
		}
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("a stale figure was kept")
	}
	if _, err := os.Stat(keep); err != nil {
		t.Error("a file that is not output was removed")
	}
}

// A user's chain is analysed as the built-in ones are, whatever its name:
// the store with mcmc-uniform renamed "floor" gives floor the same
// ratios, monotonicity and figure series that mcmc-uniform had.
func TestUserChainByRecords(t *testing.T) {
	var builtin, user []runs.Record
	for _, task := range loadStore(t).Tasks() {
		builtin = append(builtin, loadStore(t).TaskRecords(task)...)
	}
	for _, r := range builtin {
		if r.Method == "mcmc-uniform" {
			r.Method = "floor"
		}
		user = append(user, r)
	}
	a, err := Analyze(Group(builtin), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Analyze(Group(user), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	find := func(rs []Ratio, m string) (Ratio, bool) {
		for _, r := range rs {
			if r.Method == m {
				return r, true
			}
		}
		return Ratio{}, false
	}
	ra, okA := find(a.Ratios, "mcmc-uniform")
	rb, okB := find(b.Ratios, "floor")
	ra.Method = "floor"
	if !okA || !okB || ra != rb {
		t.Errorf("ratios: built-in %+v (%v), user's %+v (%v)", ra, okA, rb, okB)
	}
	if !b.IsChain("floor") || b.Steps["asap"] != method.Samples || b.Steps["gcd"] != method.None {
		t.Errorf("steps %v", b.Steps)
	}
	files, err := b.Files("toy")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kl_final.csv", "geomean.csv", "monotonicity.csv", "kl_mean.csv"} {
		if !bytes.Contains(files[name], []byte("floor")) {
			t.Errorf("%s does not list the user's chain:\n%s", name, files[name])
		}
	}
	// The figures draw it: every chain against GCD and ASAp, and its KL by k.
	for _, name := range []string{"scatter_gcd.svg", "scatter_asap.svg", "kl_mean.svg", "kl/toy_skew.svg"} {
		if !bytes.Contains(files[name], []byte(">floor<")) {
			t.Errorf("%s does not draw the user's chain", name)
		}
	}
}
