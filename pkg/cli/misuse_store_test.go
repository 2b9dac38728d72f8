package cli

// The misuse suite's cases of issue #33 rule 1 (a store has one owner and
// one grid) and of the strictness of what a store or configuration holds:
// each case runs against a sandbox that also holds {sb}/ref, a copy of a
// store with experiment.json, and configurations of other grids, and must
// leave every file outside {sb}/new as it was.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gasplab/gasp/pkg/runs"
)

// The grid of the store fixtures: task and methods of experimentJSON.
const gridTask = "SLIA/lastname"

// gridRecord is record (method, k, run) of the grid stores: the same in
// every store that holds it, so that merging two of them agrees.
func gridRecord(method string, k, run int) runs.Record {
	return runs.Record{Task: gridTask, Method: method, K: k, Run: run, Seed: uint64(run), PromptIDs: []int{1, 2},
		IDs: []int{3, 4 + run%2}, Text: fmt.Sprint("t", run%2), LogP: -1 - float64(run%2), LogPGCD: -0.5, Valid: true,
		Status: runs.StatusComplete}
}

// gridStore writes at dir the store an experiment of nRuns runs and k ≤ k
// writes: gcd at k 0 and mcmc-uniform at k 0…k, with its experiment.json.
func gridStore(t *testing.T, repo, dir string, nRuns, k int) {
	t.Helper()
	st, err := runs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for run := range nRuns {
		if err := st.Append(gridRecord("gcd", 0, run)); err != nil {
			t.Fatal(err)
		}
		for kk := 0; kk <= k; kk++ {
			if err := st.Append(gridRecord("mcmc-uniform", kk, run)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	writeSandboxFile(t, filepath.Join(dir, "experiment.json"), []byte(experimentJSON(repo, nRuns, 0, k)))
}

// ownerFixtures writes under dir/stores the grid stores (ref: runs 4, k 2;
// k1: runs 4, k 1; runs2: runs 2, k 2), stores whose experiment.json or
// records are corrupt, one with a symlinked task directory, and a sample
// file, one.jsonl.
func ownerFixtures(t *testing.T, repo, dir string) {
	t.Helper()
	stores := filepath.Join(dir, "stores")
	gridStore(t, repo, filepath.Join(stores, "ref"), 4, 2)
	gridStore(t, repo, filepath.Join(stores, "k1"), 4, 1)
	gridStore(t, repo, filepath.Join(stores, "runs2"), 2, 2)
	for name, content := range map[string]string{
		"exp-notjson": "{not json",
		"exp-runs0":   experimentJSON(repo, 0, 0, 2),
		"exp-unknown": strings.Replace(experimentJSON(repo, 4, 0, 2), `"k":`, `"kk":1,"k":`, 1),
		"exp-dupkey":  strings.Replace(experimentJSON(repo, 4, 0, 2), `"k":`, `"runs":9,"k":`, 1),
	} {
		gridStore(t, repo, filepath.Join(stores, name), 4, 2)
		writeSandboxFile(t, filepath.Join(stores, name, "experiment.json"), []byte(content))
	}
	pos := map[string]func(*runs.Record){
		"logp-pos":    func(r *runs.Record) { r.LogP = 50 },
		"logp-huge":   func(r *runs.Record) { r.LogP = 1e308 },
		"logpgcd-pos": func(r *runs.Record) { r.LogPGCD = 0.5 },
		"proposal-pos": func(r *runs.Record) {
			r.Proposal = &runs.Proposal{EOS: runs.NoEOS, LogP: 2, LogPGCD: -1, Status: "capped"}
		},
	}
	for name, edit := range pos {
		d := filepath.Join(stores, name)
		gridStore(t, repo, d, 2, 2)
		r := gridRecord("gcd", 0, 2)
		edit(&r)
		r.Schema = runs.Schema
		b, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(filepath.Join(d, "SLIA%2Flastname", "gcd.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(append(b, '\n'))
		f.Close()
		writeSandboxFile(t, filepath.Join(d, "experiment.json"), []byte(experimentJSON(repo, 3, 0, 2)))
	}
	// symtask: its one task directory is a link to a directory elsewhere;
	// symtask2: one of its two tasks is.
	for _, name := range []string{"symtask", "symtask2"} {
		d := filepath.Join(stores, name)
		gridStore(t, repo, d, 2, 2)
		if name == "symtask2" {
			os.Remove(filepath.Join(d, "experiment.json"))
			st, _ := runs.Open(d)
			r := gridRecord("gcd", 0, 0)
			r.Task = "SLIA/other"
			if err := st.Append(r); err != nil {
				t.Fatal(err)
			}
			st.Close()
		}
		task := filepath.Join(d, "SLIA%2Flastname")
		if err := os.Rename(task, filepath.Join(dir, name+"-elsewhere")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(dir, name+"-elsewhere"), task); err != nil {
			t.Fatal(err)
		}
	}
	st, err := runs.OpenFile(filepath.Join(dir, "one.jsonl"), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Append(gridRecord("gcd", 0, 0)); err != nil {
		t.Fatal(err)
	}
	st.Close()
}

// ownerMisuses are the cases; {fx}/stores/ref is copied to {sb}/ref, and
// {sb} holds exp-*.json, configurations of the grid ref's but for what
// their name says.
func ownerMisuses() []misuse {
	var out []misuse
	add := func(name, want string, code int, args ...string) {
		out = append(out, misuse{name: name, args: args, code: code, want: want})
	}
	mergeInto := func(dst string, shards ...string) []string {
		return append([]string{"experiment", "merge", "--into", dst}, shards...)
	}
	refGrid := "{sb}/ref/experiment.json (tasks [SLIA/lastname], methods [gcd mcmc-uniform], runs 4, k ≤ 2)"
	// F03: merge never replaces a store's grid by a smaller one.
	add("F03 merge a shard of smaller k into a store", "experiment: merge: the grid of "+refGrid+
		" is not within that of {fx}/stores/k1/experiment.json (tasks [SLIA/lastname], methods [gcd mcmc-uniform], runs 4, k ≤ 1)",
		1, mergeInto("{sb}/ref", "{fx}/stores/k1")...)
	add("F03 merge a shard of fewer runs into a store", "is not within that of {fx}/stores/runs2/experiment.json (tasks [SLIA/lastname], methods [gcd mcmc-uniform], runs 2, k ≤ 2)",
		1, mergeInto("{sb}/ref", "{fx}/stores/runs2")...)
	// F04: shards of one merge are of one grid.
	add("F04 merge shards of other k", "experiment: merge: {fx}/stores/k1/experiment.json and {fx}/stores/ref/experiment.json record different grids (k was 1, now 2)",
		1, mergeInto("{sb}/new/m", "{fx}/stores/k1", "{fx}/stores/ref")...)
	add("F04 merge shards of other runs", "record different grids (runs was 4, now 2)", 1, mergeInto("{sb}/new/m", "{fx}/stores/ref", "{fx}/stores/runs2")...)
	// F05: a run never shrinks the store's grid.
	add("F05 run a smaller k on a store", "experiment: the grid of "+refGrid+" is not within that of {sb}/exp-k1.json (tasks [SLIA/lastname], methods [gcd mcmc-uniform], runs 4, k ≤ 1)",
		1, "experiment", "run", "{sb}/exp-k1.json", "--store", "{sb}/ref")
	add("F05 run fewer runs on a store", "is not within that of {sb}/exp-runs2.json", 1, "experiment", "run", "{sb}/exp-runs2.json", "--store", "{sb}/ref")
	add("F05 run fewer methods on a store", "is not within that of {sb}/exp-gcd.json (tasks [SLIA/lastname], methods [gcd], runs 4, k ≤ 2)",
		1, "experiment", "run", "{sb}/exp-gcd.json", "--store", "{sb}/ref")
	// F33: a store's experiment.json that does not parse is an error.
	for _, c := range []struct{ store, want string }{
		{"exp-notjson", "{fx}/stores/exp-notjson/experiment.json:1:2: experiment config: invalid character 'n'"},
		{"exp-runs0", "{fx}/stores/exp-runs0/experiment.json: experiment config: runs must be at least 1, got 0"},
		{"exp-unknown", `{fx}/stores/exp-unknown/experiment.json: experiment config: json: unknown field "kk"`},
		{"exp-dupkey", `{fx}/stores/exp-dupkey/experiment.json:1:`},
	} {
		add("F33 analyze "+c.store, c.want, 1, "analyze", "x", "--store", "{fx}/stores/"+c.store, "--out", "{sb}/new/a", "--resamples", "2")
		add("F33 merge "+c.store, c.want, 1, mergeInto("{sb}/new/m", "{fx}/stores/"+c.store)...)
	}
	add("F33 run on a corrupt store", "{fx}/stores/exp-notjson/experiment.json:1:2", 1, "experiment", "run", "{sb}/exp-ref.json", "--store", "{fx}/stores/exp-notjson")
	// F34: a key given twice in a configuration.
	add("F34 run a config with a duplicate key", `{sb}/exp-dup.json:1:`, 1, "experiment", "run", "{sb}/exp-dup.json", "--store", "{sb}/new/s")
	add("F34 duplicate key names the key", `experiment config: key "runs" given twice`, 1, "experiment", "run", "{sb}/exp-dup.json", "--store", "{sb}/new/s")
	add("F34 keys that differ in case only", `experiment config: key "runs" given twice (as "Runs" before; keys match whatever their case)`, 1, "experiment", "run", "{sb}/exp-dupcase.json", "--store", "{sb}/new/s")
	// F08: log-probabilities above 0.
	for _, c := range []struct{ store, want string }{
		{"logp-pos", "gcd.jsonl:3: corrupt run record: logp = 50 > 0"},
		{"logp-huge", "gcd.jsonl:3: corrupt run record: logp = 1e+308 > 0"},
		{"logpgcd-pos", "gcd.jsonl:3: corrupt run record: logp_gcd = 0.5 > 0"},
		{"proposal-pos", "gcd.jsonl:3: corrupt run record: proposal: logp = 2 > 0"},
	} {
		add("F08 analyze "+c.store, "{fx}/stores/"+c.store+"/SLIA%2Flastname/"+c.want, 1, "analyze", "x", "--store", "{fx}/stores/"+c.store, "--out", "{sb}/new/a", "--resamples", "2")
	}
	add("F08 analyze-true a store of logp > 0", "{fx}/stores/logp-pos/SLIA%2Flastname/gcd.jsonl:3", 1,
		"analyze-true", "--store", "{fx}/stores/logp-pos", "--exact", "{fx}/stores/ref", "--method", "gcd", "--out", "{sb}/new/t", "--resamples", "2")
	add("F08 merge a shard of logp > 0", "{fx}/stores/logp-pos/SLIA%2Flastname/gcd.jsonl:3", 1, mergeInto("{sb}/new/m", "{fx}/stores/logp-pos")...)
	// F07: one store named twice.
	trueArgs := func(stores, exact string) []string {
		return []string{"analyze-true", "--store", stores, "--exact", exact, "--method", "gcd", "--out", "{sb}/new/t", "--resamples", "2"}
	}
	add("F07 analyze-true the same store twice", "--store: analysis: {fx}/stores/ref and {fx}/stores/ref are one store, whose every record would count twice", 1, trueArgs("{fx}/stores/ref,{fx}/stores/ref", "{fx}/stores/k1")...)
	add("F07 analyze-true one store by two paths", "--store: analysis: {fx}/stores/ref and {fx}/stores/../stores/ref/ are one store", 1,
		trueArgs("{fx}/stores/ref,{fx}/stores/k1,{fx}/stores/../stores/ref/", "{fx}/stores/runs2")...)
	add("F07 analyze-true the same exact store twice", "--exact: analysis: {fx}/stores/k1 and {fx}/stores/k1 are one store", 1, trueArgs("{fx}/stores/ref", "{fx}/stores/k1,{fx}/stores/k1")...)
	add("F07 analyze-true a store and a link to it", "--store: analysis: {fx}/stores/ref and {sb}/ref-link are one store", 1, trueArgs("{fx}/stores/ref,{sb}/ref-link", "{fx}/stores/k1")...)
	// F30: an exact method the --exact stores do not hold.
	add("F30 analyze-true --method nosuch", `--method nosuch, --exact {fx}/stores/k1: analysis: the exact samples hold no records of method "nosuch" (they hold gcd, mcmc-uniform)`, 1,
		"analyze-true", "--store", "{fx}/stores/ref", "--exact", "{fx}/stores/k1", "--method", "nosuch", "--out", "{sb}/new/t", "--resamples", "2")
	add("F30 analyze-true --method of a method not in --exact", `--method cars, --exact {fx}/stores/k1: analysis: the exact samples hold no records of method "cars" (they hold gcd, mcmc-uniform)`, 1,
		"analyze-true", "--store", "{fx}/stores/ref", "--exact", "{fx}/stores/k1", "--method", "cars", "--out", "{sb}/new/t", "--resamples", "2")
	// F31: a task directory that is a symbolic link.
	add("F31 analyze a store whose task directory is a link", "runs: {fx}/stores/symtask/SLIA%2Flastname is a symbolic link", 1,
		"analyze", "x", "--store", "{fx}/stores/symtask", "--out", "{sb}/new/a", "--resamples", "2")
	add("F31 analyze a store with one linked task directory of two", "runs: {fx}/stores/symtask2/SLIA%2Flastname is a symbolic link", 1,
		"analyze", "x", "--store", "{fx}/stores/symtask2", "--out", "{sb}/new/a", "--resamples", "2")
	add("F31 merge a shard with a linked task directory", "runs: {fx}/stores/symtask/SLIA%2Flastname is a symbolic link", 1,
		mergeInto("{sb}/new/m", "{fx}/stores/symtask")...)
	add("F31 run into a store with a linked task directory", "runs: {sb}/symstore/SLIA%2Flastname is a symbolic link", 1,
		"experiment", "run", "{sb}/exp-ref.json", "--store", "{sb}/symstore")
	// F41: merge given files.
	add("F41 merge a sample file", "experiment: merge: {fx}/one.jsonl is a file, not a run store directory", 1, mergeInto("{sb}/new/m", "{fx}/one.jsonl")...)
	add("F41 merge into a file", "experiment: merge: the merged store {sb}/notes.txt is a file, not a run store directory", 1, mergeInto("{sb}/notes.txt", "{fx}/stores/ref")...)
	add("F41 merge a device", "experiment: merge: /dev/null is not a run store directory", 1, mergeInto("{sb}/new/m", "/dev/null")...)
	add("F41 merge a missing store", "experiment: merge: {sb}/nostore does not exist", 1, mergeInto("{sb}/new/m", "{sb}/nostore")...)
	// F44: negative durations.
	add("F44 run --task-time -1s", "--task-time must not be negative, got -1s", 2, "experiment", "run", "{sb}/exp-ref.json", "--task-time", "-1s", "--store", "{sb}/new/s")
	add("F44 run --task-time -1ns", "--task-time must not be negative, got -1ns", 2, "experiment", "run", "{sb}/exp-ref.json", "--task-time", "-1ns", "--store", "{sb}/new/s")
	return out
}

// ownerSandbox adds to sb what ownerMisuses name: the store ref, the
// configurations and a link.
func ownerSandbox(t *testing.T, repo, fx, sb string) {
	t.Helper()
	copyTree(t, filepath.Join(fx, "stores", "ref"), filepath.Join(sb, "ref"))
	ref := experimentJSON(repo, 4, 0, 2)
	for name, content := range map[string]string{
		"exp-ref.json":     ref,
		"exp-k1.json":      experimentJSON(repo, 4, 0, 1),
		"exp-runs2.json":   experimentJSON(repo, 2, 0, 2),
		"exp-gcd.json":     strings.Replace(ref, `"gcd","mcmc-uniform"`, `"gcd"`, 1),
		"exp-dup.json":     strings.Replace(ref, `"k":`, `"runs":1,"k":`, 1),
		"exp-dupcase.json": strings.Replace(ref, `"k":`, `"Runs":1,"k":`, 1),
	} {
		if content == ref && name != "exp-ref.json" {
			t.Fatalf("%s: the edit did not apply", name)
		}
		writeSandboxFile(t, filepath.Join(sb, name), []byte(content))
	}
	if err := os.Symlink(filepath.Join(fx, "stores", "ref"), filepath.Join(sb, "ref-link")); err != nil {
		t.Fatal(err)
	}
	copyTree(t, filepath.Join(fx, "stores", "ref"), filepath.Join(sb, "symstore"))
	task := filepath.Join(sb, "symstore", "SLIA%2Flastname")
	if err := os.Rename(task, filepath.Join(sb, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(sb, "elsewhere"), task); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies the regular files and directories under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeSandboxFile(t, filepath.Join(dst, rel), b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMisuseStoreOwner runs ownerMisuses as TestMisuse runs its cases.
func TestMisuseStoreOwner(t *testing.T) {
	repo := misuseRepo(t)
	fx := t.TempDir()
	ownerFixtures(t, repo, fx)
	shared := snapshot(t, fx)
	for _, c := range ownerMisuses() {
		t.Run(c.name, func(t *testing.T) {
			sb := newSandbox(t, repo)
			ownerSandbox(t, repo, fx, sb)
			before := snapshot(t, sb)
			expand := strings.NewReplacer("{sb}", sb, "{fx}", fx, "{repo}", repo)
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = expand.Replace(a)
			}
			code, _, errOut := gaspNoPanic(args...)
			checkOutcome(t, args, code, errOut, c.code, expand.Replace(c.want))
			checkOnlyOutput(t, args, sb, before, snapshot(t, sb))
		})
	}
	for _, d := range diffSnapshots(shared, snapshot(t, fx)) {
		t.Errorf("the cases changed %s, which none writes", d)
	}
}

// TestMisuseLiveWriter (F32): analyze and analyze-true refuse a store that
// a live writer holds, naming it: an experiment run between its appends
// (a child process, as the campaign ran it), and an in-process writer
// that holds the store open; once the writer is gone, the store is
// analysed.
func TestMisuseLiveWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an experiment")
	}
	repo, _ := filepath.Abs("../..")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "exp.json")
	writeSandboxFile(t, cfg, []byte(experimentJSON(repo, 100000, 1, 1)))
	live := filepath.Join(dir, "live")
	args, _ := json.Marshal([]string{"experiment", "run", cfg, "--store", live})
	p := exec.Command(os.Args[0], "-test.run=^$")
	p.Env = append(os.Environ(), "GASP_TEST_MAIN="+string(args))
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	defer p.Process.Kill()
	for deadline := time.Now().Add(time.Minute); len(runstestLines(live)) < 4; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the experiment stored no records in a minute")
		}
	}
	analyze := []string{"analyze", "x", "--store", live, "--out", filepath.Join(dir, "a"), "--resamples", "2"}
	want := "analysis: " + live + " is being written"
	if code, _, errOut := gasp(analyze...); code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("analyze during a run: exit %d, stderr:\n%s\nwant %q", code, errOut, want)
	}
	p.Process.Kill()
	p.Wait()
	if code, _, errOut := gasp(analyze...); code != 0 {
		t.Errorf("analyze after the run: exit %d, stderr:\n%s", code, errOut)
	}

	ref := filepath.Join(dir, "ref")
	gridStore(t, repo, ref, 4, 2)
	st, err := runs.Open(ref)
	if err != nil {
		t.Fatal(err)
	}
	trueArgs := []string{"analyze-true", "--store", ref, "--exact", ref, "--method", "gcd", "--out", filepath.Join(dir, "t"), "--resamples", "2"}
	if code, _, errOut := gasp(trueArgs...); code != 1 || !strings.Contains(errOut, "analysis: "+ref+" is being written") {
		t.Errorf("analyze-true of an open store: exit %d, stderr:\n%s", code, errOut)
	}
	st.Close()
	if code, _, errOut := gasp(trueArgs...); code != 0 {
		t.Errorf("analyze-true of a closed store: exit %d, stderr:\n%s", code, errOut)
	}
}

// runstestLines returns the record lines under a store directory, none
// while it has none.
func runstestLines(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			b, _ := os.ReadFile(p)
			out = append(out, strings.Split(strings.TrimSpace(string(b)), "\n")...)
		}
		return nil
	})
	return out
}
