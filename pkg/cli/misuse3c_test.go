package cli

// Cases of the third misuse campaign (issue 33) and variants of their
// classes: each asserts the exit code, the message naming the file, flag or
// record at fault, and that a user's files are unchanged.

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/runs"
)

// repoPaths returns the repository and its embedded model.
func repoPaths(t *testing.T) (repo, tiny string) {
	t.Helper()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return repo, filepath.Join(repo, "data", "models", "tiny")
}

// wantRefusal runs gasp and fails unless it exits with code, without a
// panic, saying want on standard error.
func wantRefusal(t *testing.T, code int, want string, args ...string) {
	t.Helper()
	got, _, errOut := gaspNoPanic(args...)
	if got != code || !strings.Contains(errOut, want) || strings.Contains(errOut, "panic") {
		t.Errorf("gasp %q: exit %d, stderr:\n%s\nwant exit %d saying %q", args, got, errOut, code, want)
	}
}

// unchanged fails for every path under dir that differs from before.
func unchanged(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	for _, d := range diffSnapshots(before, snapshot(t, dir)) {
		t.Errorf("%s changed; it is a user's file", d)
	}
}

// F02: analyze writes through a subdirectory of --out that a user replaced
// by a symbolic link to their own files. Variants: another subdirectory,
// and a link to a directory of the user's next to the output.
func TestMisuseWriteThroughSymlink(t *testing.T) {
	if testing.Short() {
		t.Skip("runs gasp analyze")
	}
	repo, _ := repoPaths(t)
	sb := t.TempDir()
	user := filepath.Join(sb, "userdocs")
	writeSandboxFile(t, filepath.Join(user, "README.md"), []byte("# my docs\n"))
	writeSandboxFile(t, filepath.Join(user, "kl.csv"), []byte("a,b\n"))
	out := filepath.Join(sb, "symout")
	args := []string{"analyze", "quick", "--store", filepath.Join(repo, "mcmc", "quick"), "--out", out, "--resamples", "2"}
	if code, _, errOut := gasp(args...); code != 0 {
		t.Fatalf("gasp %q: exit %d: %s", args, code, errOut)
	}
	before := snapshot(t, user)
	for _, sub := range []string{"authors", "fig15-slia_kl"} {
		link := filepath.Join(out, sub)
		if err := os.RemoveAll(link); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../userdocs", link); err != nil {
			t.Fatal(err)
		}
		wantRefusal(t, 1, link+" is a symbolic link; gasp does not write through it", args...)
		unchanged(t, user, before)
		os.Remove(link)
	}
}

// F09: at a small temperature the probabilities of the allowed tokens
// underflow in linear space, though P restricted to the grammar is well
// defined at any temperature > 0: every run must complete. Variants: other
// temperatures, down to 1e-300, and every method: those that draw from
// P_GCD (an MCMC chain, SMC), ASAp, CARS and AWRS, whose tries and
// weights are in log space. Rejection sampling from P, RSFT and ARS (which
// learns no masks) are exact too, so that where P(L) ≈ e^-2943 they accept
// nothing: their attempts are rejected, never dead ends.
func TestMisuseTinyTemperature(t *testing.T) {
	if testing.Short() {
		t.Skip("samples from the embedded model")
	}
	_, tiny := repoPaths(t)
	dir := t.TempDir()
	gr := filepath.Join(dir, "ab.gbnf")
	writeSandboxFile(t, gr, []byte("root ::= \"a\" | \"b\"\n"))
	for _, c := range []struct {
		method, temp string
		valid        bool // every record a complete sentence; else none a dead end
	}{
		{"gcd", "0.008", true}, {"gcd", "1e-3", true}, {"gcd", "1e-300", true}, {"mcmc-uniform", "1e-30", true}, {"smc-2", "1e-100", true},
		{"asap", "0.005", true}, {"asap", "1e-300", true}, {"cars", "0.005", true}, {"cars", "1e-300", true},
		{"smc-awrs-2", "0.005", true}, {"smc-awrs-2", "1e-300", true},
		{"rejection", "0.005", false}, {"rsft", "0.005", false}, {"ars", "0.005", false},
	} {
		out := filepath.Join(dir, c.method+c.temp+".jsonl")
		args := []string{"sample", "--model", tiny, "--grammar", gr, "--prompt", "hi", "--n", "4", "--max-new-tokens", "4", "--k", "2",
			"--method", c.method, "--temperature", c.temp, "--quiet", "--out", out}
		if code, _, errOut := gaspNoPanic(args...); code != 0 {
			t.Errorf("gasp %q: exit %d: %s", args, code, errOut)
			continue
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		for i, l := range lines {
			if c.valid && (!strings.Contains(l, `"status":"complete"`) || !strings.Contains(l, `"valid":true`)) {
				t.Errorf("--method %s --temperature %s: %s:%d is not a complete sample: %s", c.method, c.temp, out, i+1, l)
			}
			if strings.Contains(l, `"status":"dead end"`) {
				t.Errorf("--method %s --temperature %s: %s:%d is a dead end: %s", c.method, c.temp, out, i+1, l)
			}
		}
	}
}

// evalStore writes a store of task "x" with gcd at k 0 and mcmc-uniform at
// k 1, runs records each, whose records have evals and log P given by f.
func evalStore(t *testing.T, repo, dir string, nRuns int, f func(r *runs.Record)) {
	t.Helper()
	st, err := runs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, m := range []struct {
		method string
		k      int
	}{{"gcd", 0}, {"mcmc-uniform", 1}} {
		for run := range nRuns {
			r := storeRecord(m.method, m.k, run)
			r.Evals = 10
			f(&r)
			if err := st.Append(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	writeSandboxFile(t, filepath.Join(dir, "experiment.json"), []byte(experimentJSON(repo, nRuns, 0, 1)))
}

// F10, F11: figures on a log scale given values a log scale cannot show
// must not panic: analyze-true where the exact samples recorded no LM
// evaluations (x = 0 on its log x axis), analyze where log P is −1e308
// (KLs of 1e308, whose margin overflows) or a KL is 0 beside others.
func TestMisuseLogAxis(t *testing.T) {
	if testing.Short() {
		t.Skip("runs gasp analyze")
	}
	repo, _ := repoPaths(t)
	dir := t.TempDir()
	store, exact := filepath.Join(dir, "store"), filepath.Join(dir, "exact")
	evalStore(t, repo, store, 20, func(*runs.Record) {})
	evalStore(t, repo, exact, 40, func(r *runs.Record) { r.Evals = 0 })
	args := []string{"analyze-true", "--store", store, "--exact", exact, "--method", "gcd", "--min-exact", "1", "--out", filepath.Join(dir, "o1"), "--resamples", "20"}
	if code, _, errOut := gaspNoPanic(args...); code != 0 {
		t.Errorf("gasp %q: exit %d: %s", args, code, errOut)
	}
	huge := filepath.Join(dir, "huge")
	// GCD draws two texts of log P −1, 3:1, MCMC one of them and a third
	// of log P −1e308: KLs of about 0.1 and 1e308.
	evalStore(t, repo, huge, 4, func(r *runs.Record) {
		r.LogP, r.IDs, r.Text = -1, []int{3, 4}, "t0"
		switch {
		case r.Method == "gcd" && r.Run%4 == 3:
			r.IDs, r.Text = []int{3, 7}, "t7"
		case r.Method == "mcmc-uniform" && r.Run%2 == 1:
			r.IDs, r.Text, r.LogP = []int{3, 5}, "t5", -1e308
		}
	})
	args = []string{"analyze", "x", "--store", huge, "--out", filepath.Join(dir, "o2"), "--resamples", "2"}
	if code, _, errOut := gaspNoPanic(args...); code != 0 {
		t.Errorf("gasp %q: exit %d: %s", args, code, errOut)
	}
}

// F06: a CARS --trie holds for the grammar, model, prompt and settings it
// was learnt under only: under others it is refused, naming the setting
// that differs, and the file is left as it was. Variants: another grammar
// (the campaign's), another prompt, temperature or cap, a trie saved
// before gasp recorded its settings.
func TestMisuseTrieOfAnotherGrammar(t *testing.T) {
	if testing.Short() {
		t.Skip("samples from the embedded model")
	}
	_, tiny := repoPaths(t)
	dir := t.TempDir()
	ab, onlyB := filepath.Join(dir, "aorb.gbnf"), filepath.Join(dir, "onlyb.gbnf")
	writeSandboxFile(t, ab, []byte("root ::= \"a\" | \"b\"\n"))
	writeSandboxFile(t, onlyB, []byte("root ::= \"b\"\n"))
	trie := filepath.Join(dir, "AB.trie")
	base := func(gr string, extra ...string) []string {
		return append([]string{"sample", "--model", tiny, "--grammar", gr, "--prompt", "hi", "--method", "cars", "--budget", "50", "--n", "5",
			"--max-new-tokens", "4", "--trie", trie, "--quiet"}, extra...)
	}
	if code, _, errOut := gasp(base(ab)...); code != 0 {
		t.Fatalf("learning the trie: exit %d: %s", code, errOut)
	}
	// The same settings, another budget: the trie holds.
	if code, _, errOut := gasp(base(ab, "--budget", "60", "--seed", "3")...); code != 0 {
		t.Fatalf("reusing the trie: exit %d: %s", code, errOut)
	}
	before := snapshot(t, dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{base(onlyB, "--seed", "7"), "--trie " + trie + ": learnt under grammar="},
		{base(ab, "--prompt", "hello"), "--trie " + trie + ": learnt under prompt="},
		{base(ab, "--temperature", "0.5"), "--trie " + trie + ": learnt under temperature=1, not temperature=0.5"},
		{base(ab, "--max-new-tokens", "5"), "--trie " + trie + ": learnt under max-new-tokens=4, not max-new-tokens=5"},
	} {
		wantRefusal(t, 1, c.want, c.args...)
	}
	unchanged(t, dir, before)
	old := filepath.Join(dir, "old.trie") // as gasp saved tries before it recorded their settings
	writeSandboxFile(t, old, []byte("gasp-trie 1\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	before = snapshot(t, dir)
	args := base(ab)
	args[len(args)-2] = old
	wantRefusal(t, 1, "--trie "+old+": records no settings it was learnt under", args...)
	unchanged(t, dir, before)
}

// F45: a corrupt trie is reported at the offset of the byte at fault: the
// root's flags byte (the campaign's case), a child's log alive mass (a
// variant). The file is left as it was.
func TestMisuseCorruptTrie(t *testing.T) {
	if testing.Short() {
		t.Skip("samples from the embedded model")
	}
	_, tiny := repoPaths(t)
	dir := t.TempDir()
	gr := filepath.Join(dir, "aorb.gbnf")
	writeSandboxFile(t, gr, []byte("root ::= \"a\" | \"b\"\n"))
	trie := filepath.Join(dir, "t.trie")
	args := []string{"sample", "--model", tiny, "--grammar", gr, "--prompt", "hi", "--method", "cars", "--n", "3", "--max-new-tokens", "4", "--trie", trie, "--quiet"}
	if code, _, errOut := gasp(args...); code != 0 {
		t.Fatalf("learning the trie: exit %d: %s", code, errOut)
	}
	good, err := os.ReadFile(trie)
	if err != nil {
		t.Fatal(err)
	}
	// The magic line, the settings' length (a uvarint) and the settings.
	n, w := binary.Uvarint(good[12:])
	root := 12 + w + int(n)
	// The root's flags and log alive mass, its child count, its first
	// child's token: then the child's flags.
	_, wn := binary.Uvarint(good[root+9:])
	_, wt := binary.Uvarint(good[root+9+wn:])
	child := root + 9 + wn + wt
	for _, c := range []struct {
		at   int
		b    byte
		want string
	}{
		{root, good[root] ^ 0x80, fmt.Sprintf("unknown node flags at offset %d", root)},
		// The top byte of the child's log alive mass.
		{child + 8, 0x7f, fmt.Sprintf("log-probability above 0, NaN, or finite for an invalid prefix at offset %d", child+1)},
	} {
		b := bytes.Clone(good)
		b[c.at] = c.b
		writeSandboxFile(t, trie, b)
		wantRefusal(t, 1, "--trie "+trie+": sample: saved trie: "+c.want, args...)
		if after, _ := os.ReadFile(trie); !bytes.Equal(after, b) {
			t.Errorf("a refused run changed %s", trie)
		}
	}
}

// F35, F36: fuzz table with a method directory named "my,method" (the
// CSV keeps 19 columns) and with coverage reports that are not
// percentages or name one method and k twice (refused, naming the files,
// writing nothing).
func TestMisuseFuzzTable(t *testing.T) {
	repo, _ := repoPaths(t)
	cov, err := os.ReadFile(filepath.Join(repo, "analysis", "fuzz-quick", "xml", "gcd", "coverage.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeSandboxFile(t, filepath.Join(dir, "T", "xml", "my,method", "coverage.json"), cov)
	if code, _, errOut := gaspNoPanic("fuzz", "table", filepath.Join(dir, "T")); code != 0 {
		t.Fatalf("fuzz table: exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, "T", "tab3-supp-metrics-xml.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(rows) != 2 || len(rows[1]) != len(rows[0]) || len(rows[0]) != 22 || rows[1][3] != "my,method" {
		t.Errorf("tab3 csv: %q, %v; want 2 rows of 22 fields, method \"my,method\"", rows, err)
	}
	for _, c := range []struct {
		dirs []string
		edit func(string) string
		want string
	}{
		{[]string{"gcd"}, func(s string) string { return strings.Replace(s, `"branch_pct": `, `"branch_pct": 250, "x": `, 1) }, "gcd/coverage.json: branch_pct 250 is outside [0, 100]"},
		{[]string{"gcd"}, func(s string) string { return strings.Replace(s, `"line_pct": `, `"line_pct": -40, "x": `, 1) }, "gcd/coverage.json: line_pct -40 is outside [0, 100]"},
		{[]string{"mcmc-uniform-k010", "mcmc-uniform-k10"}, func(s string) string { return s }, "mcmc-uniform-k010/coverage.json and "},
	} {
		sb := t.TempDir()
		for _, d := range c.dirs {
			writeSandboxFile(t, filepath.Join(sb, "xml", d, "coverage.json"), []byte(c.edit(string(cov))))
		}
		before := snapshot(t, sb)
		wantRefusal(t, 1, c.want, "fuzz", "table", sb)
		unchanged(t, sb, before)
	}
}

// F40: a KL that cannot be drawn (every record of log P −∞, or one) is an
// error naming the figure, the task, the method and k, not gonum/plot's
// "NaN data point".
func TestMisuseFigureNaN(t *testing.T) {
	repo, _ := repoPaths(t)
	for _, c := range []struct {
		name string
		zero func(r *runs.Record) bool
		want string
	}{
		{"all_zero_prob", func(r *runs.Record) bool { return true }, "kl/x.svg: task x: method gcd, k 0: KL NaN [NaN, NaN] is not a finite number"},
		{"one_zero_prob", func(r *runs.Record) bool { return r.Method == "mcmc-uniform" && r.Run == 1 }, "kl/x.svg: task x: method gcd, k 0: KL +Inf [NaN, NaN] is not a finite number"},
	} {
		dir := t.TempDir()
		st := filepath.Join(dir, c.name)
		evalStore(t, repo, st, 4, func(r *runs.Record) {
			if c.zero(r) {
				r.LogP = math.Inf(-1)
			}
		})
		wantRefusal(t, 1, c.want, "analyze", "x", "--store", st, "--out", filepath.Join(dir, "a"), "--resamples", "2")
	}
}

// F42: doctor checks every file of the model that a run reads, as a run
// reads it: a tokenizer.json that is not JSON (the campaign's case), one
// that is missing, a directory, or JSON but no tokenizer.
// It must not say "ready".
func TestMisuseDoctorTokenizer(t *testing.T) {
	t.Setenv("GOMLX_BACKEND", "go")
	_, tiny := repoPaths(t)
	tokBytes, err := os.ReadFile(filepath.Join(tiny, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		make func(path string)
		want string
	}{
		{"not JSON", func(p string) { os.WriteFile(p, []byte("not json\n"), 0o644) }, "tokenizer.json"},
		{"missing", func(p string) { os.Remove(p) }, "tokenizer.json"},
		{"directory", func(p string) { os.Remove(p); os.Mkdir(p, 0o755) }, "tokenizer.json"},
		{"not a tokenizer", func(p string) { os.WriteFile(p, []byte("{}\n"), 0o644) }, "tokenizer.json"},
	} {
		dir := t.TempDir()
		for _, name := range []string{"config.json", "tokenizer_config.json", "generation_config.json", "model.safetensors"} {
			b, err := os.ReadFile(filepath.Join(tiny, name))
			if err != nil {
				t.Fatal(err)
			}
			writeSandboxFile(t, filepath.Join(dir, name), b)
		}
		writeSandboxFile(t, filepath.Join(dir, "tokenizer.json"), tokBytes)
		c.make(filepath.Join(dir, "tokenizer.json"))
		code, out, errOut := gaspNoPanic("doctor", "--model", dir)
		if code != 1 || strings.Contains(out, "\nready") || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 1, not ready, saying %q", c.name, code, out, errOut, c.want)
		}
	}
}

// F43: a weight of a dtype gasp does not convert, laid out as another, is
// reported by its dtype: F8_E4M3 (the campaign's case), F8_E5M2, I32.
func TestMisuseUnsupportedDType(t *testing.T) {
	_, tiny := repoPaths(t)
	st, err := os.ReadFile(filepath.Join(tiny, "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint64(st[:8])
	var header map[string]json.RawMessage
	if err := json.Unmarshal(st[8:8+n], &header); err != nil {
		t.Fatal(err)
	}
	const name = "model.embed_tokens.weight"
	for _, dt := range []string{"F8_E4M3", "F8_E5M2", "I32"} {
		var e map[string]any
		json.Unmarshal(header[name], &e)
		if e["dtype"] != "F32" {
			t.Fatalf("%s is %v, not F32", name, e["dtype"])
		}
		e["dtype"] = dt
		h := maps.Clone(header)
		h[name], _ = json.Marshal(e)
		hb, _ := json.Marshal(h)
		for len(hb)%8 != 0 {
			hb = append(hb, ' ')
		}
		dir := t.TempDir()
		for _, f := range []string{"config.json", "tokenizer.json", "tokenizer_config.json", "generation_config.json"} {
			b, _ := os.ReadFile(filepath.Join(tiny, f))
			writeSandboxFile(t, filepath.Join(dir, f), b)
		}
		file := binary.LittleEndian.AppendUint64(nil, uint64(len(hb)))
		file = append(append(file, hb...), st[8+n:]...)
		writeSandboxFile(t, filepath.Join(dir, "model.safetensors"), file)
		if dt == "I32" { // as wide as F32: consistent, refused when converted
			wantRefusal(t, 1, "unsupported dtype I32", "logits", "--model", dir, "--ids", "1 2 3")
			continue
		}
		wantRefusal(t, 1, fmt.Sprintf("tensor %q: unsupported dtype %s (gasp converts F32, BF16 and F16 only)", name, dt), "logits", "--model", dir, "--ids", "1 2 3")
	}
}

// F09, the experiment's variant: a grid at temperature 1e-300 completes
// every run of GCD and MCMC.
func TestMisuseTinyTemperatureExperiment(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an experiment")
	}
	dir, exp := abExperiment(t, map[string]any{"name": "cold", "methods": []string{"gcd", "mcmc-uniform"},
		"k": 2, "batch": 0, "temperature": 1e-300})
	store := filepath.Join(dir, "store")
	if code, _, errOut := gaspNoPanic("experiment", "run", exp, "--store", store); code != 0 {
		t.Fatalf("experiment run: exit %d: %s", code, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(store, "*", "*.jsonl"))
	if len(files) != 2 {
		t.Fatalf("store files %v, want gcd's and mcmc-uniform's", files)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for i, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if !strings.Contains(l, `"status":"complete"`) {
				t.Errorf("%s:%d is not a complete sample: %.200s", f, i+1, l)
			}
		}
	}
}

// F01, what readers see: the records of an experiment carry its sampling
// settings, so that a store that holds records of two (as two runs of
// other temperatures on one store without its lock left it) is refused by
// every reader that combines records, naming the file and line of the
// first record that differs: analyze, a resumed run, merge. A store
// written before records carried settings is read as before
// (TestCommittedAnalysis).
func TestMisuseMixedSettingsStore(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an experiment")
	}
	dir, exp := abExperiment(t, map[string]any{"name": "mixed", "methods": []string{"gcd"}, "k": 1, "batch": 1, "temperature": 1})
	store := filepath.Join(dir, "store")
	if code, _, errOut := gaspNoPanic("experiment", "run", exp, "--store", store); code != 0 {
		t.Fatalf("experiment run: exit %d: %s", code, errOut)
	}
	file := filepath.Join(store, "T%2Fab", "gcd.jsonl")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if len(lines) != 4 || !strings.Contains(lines[2], " temperature=1 ") {
		t.Fatalf("%s: want 3 records carrying temperature=1, got:\n%s", file, b)
	}
	// Run 2 as a run at temperature 0.5 wrote it.
	lines[2] = strings.Replace(lines[2], " temperature=1 ", " temperature=0.5 ", 1)
	writeSandboxFile(t, file, []byte(strings.Join(lines, "")))
	before := snapshot(t, dir)
	want := file + ":3: a record of task \"T/ab\", method \"gcd\" drawn with other settings than "
	diff := "(temperature was 1, now 0.5)"
	wantRefusal(t, 1, want+filepath.Join(store, "experiment.json")+" "+diff, "analyze", "mixed", "--store", store, "--out", filepath.Join(dir, "out"))
	wantRefusal(t, 1, want+filepath.Join(store, "experiment.json")+" "+diff, "experiment", "merge", "--into", filepath.Join(dir, "merged"), store)
	wantRefusal(t, 1, want+exp+" "+diff, "experiment", "run", exp, "--store", store)
	unchanged(t, dir, before)
}

// abExperiment writes, in a new directory, a task T/ab whose language is
// "a" and "b" and an experiment of 3 runs on it with the embedded model,
// with the fields of set over the defaults; it returns the directory and
// the configuration's path.
func abExperiment(t *testing.T, set map[string]any) (dir, exp string) {
	_, tiny := repoPaths(t)
	dir = t.TempDir()
	writeSandboxFile(t, filepath.Join(dir, "tasks", "T", "ab", "grammar.ebnf"), []byte("root ::= \"a\" | \"b\"\n"))
	writeSandboxFile(t, filepath.Join(dir, "tasks", "T", "ab", "prompt.txt"), []byte("a or b?\n"))
	c := map[string]any{
		"protocol": "quick", "task_root": filepath.Join(dir, "tasks"), "tasks": []string{"T/ab"}, "runs": 3,
		"model": tiny, "template": "chat", "top_p": 1.0, "top_k": 0, "max_new_tokens": 4, "seed": 1, "lenient": true,
	}
	for k, v := range set {
		c[k] = v
	}
	cfg, _ := json.Marshal(c)
	exp = filepath.Join(dir, "exp.json")
	writeSandboxFile(t, exp, cfg)
	return dir, exp
}
