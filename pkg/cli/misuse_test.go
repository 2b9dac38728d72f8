package cli

// The misuse suite: every command, run as a careless or adversarial user
// would, with bad values for its numeric and path flags, corrupt run
// stores and files it must not touch. Each case checks the exit code, that
// the message names the flag, file or line at fault, that nothing panicked,
// and that no file outside the case's new outputs changed: a snapshot of a
// sandbox full of a user's files and of the repository's committed data,
// before and after.

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// A misuse is one command line and what it must do.
type misuse struct {
	name string
	args []string // {sb}: the sandbox, {repo}: the repository, {tiny}: the embedded model, {gr}: a grammar
	code int      // the exit code; -1: any non-zero
	want string   // a substring of standard error (the flag, file or line named)
}

// Bad values for numeric flags.
const (
	huge    = "9223372036854775807"
	hugeF   = "1e308"
	notANum = "NaN"
	inf     = "Inf"
)

// numericMisuses are bad values of every numeric flag of every command,
// each with a base command line that is otherwise valid and cheap.
func numericMisuses() []misuse {
	sample := []string{"sample", "--grammar", "{gr}", "--prompt", "hi", "--model", "{tiny}", "--n", "1", "--max-new-tokens", "4", "--quiet"}
	demo := []string{"demo", "--task", "testdata/demo-task", "--model", "{tiny}", "--runs", "2", "--k", "1", "--max-new-tokens", "4",
		"--out", "{sb}/new/store", "--analysis", "{sb}/new/analysis", "--quiet"}
	analyze := []string{"analyze", "quick", "--store", "{repo}/mcmc/quick", "--out", "{sb}/new/analysis", "--resamples", "2"}
	masks := []string{"bench", "masks", "--tokenizer", "{tiny}/tokenizer.json", "--grammar", "{repo}/grammar/json.gbnf", "--ids", "{sb}/ids.txt"}
	benchLM := []string{"bench", "lm", "--model", "{tiny}", "--steps", "1", "--prompt-len", "4", "--batch", "1"}
	benchSample := []string{"bench", "sample", "--model", "{tiny}", "--grammar", "{gr}", "--prompt", "hi", "--k", "1", "--chains", "1", "--max-new-tokens", "4"}
	seeds := []string{"fuzz", "seeds", "--target", "xml", "--root", "{repo}", "-n", "2", "--out", "{sb}/new/seeds"}
	storeSeeds := []string{"fuzz", "seeds", "--target", "xml", "--store", "{repo}/mcmc/fuzz-quick", "--task", "xml", "--method", "gcd", "-n", "2", "--out", "{sb}/new/seeds"}
	validity := []string{"fuzz", "validity", "--target", "xml", "--root", "{repo}", "-n", "2", "--toolchain", "{sb}/new/no-toolchain"}
	fuzzRun := []string{"fuzz", "run", "--target", "xml", "--seeds", "{sb}/seeds", "--out", "{sb}/new/run", "--toolchain", "{sb}/new/no-toolchain"}
	train := []string{"train-tiny", "--root", "{repo}", "--out", "{sb}/new/model", "--steps", "1"}
	eval := []string{"eval-tiny", "--model", "{tiny}", "--root", "{repo}", "--n", "1"}
	gsample := []string{"grammar", "sample", "{gr}", "-n", "1"}
	tokBench := []string{"bench", "tokenize", "--tokenizer", "{tiny}/tokenizer.json", "--passes", "1", "--mb", "0.001"}
	expRun := []string{"experiment", "run", "{sb}/exp.json", "--store", "{sb}/new/store"}

	type flagSpec struct {
		base []string
		flag string
		bad  []string
	}
	neg := []string{"-1", huge, notANum}
	negZero := []string{"-1", "0", huge, notANum}
	specs := []flagSpec{
		{sample, "--n", negZero},
		{sample, "--first", []string{"-1", huge}},
		{sample, "--k", []string{"-1"}},
		{sample, "--max-new-tokens", negZero},
		{sample, "--temperature", []string{"0", "-1", notANum, inf, "-" + inf}},
		{sample, "--top-p", []string{"0", "-1", "1.5", notANum, inf}},
		{sample, "--top-k", []string{"-1"}},
		{sample, "--budget", negZero},
		{sample, "--batch", []string{"-1", "0", notANum}},
		{sample, "--seed", []string{"-1"}},
		{demo, "--runs", negZero},
		{demo, "--k", negZero},
		{demo, "--max-new-tokens", negZero},
		{demo, "--resamples", negZero},
		{analyze, "--resamples", negZero},
		{analyze, "--k", []string{"-1", "99", huge}},
		{masks, "--passes", negZero},
		{masks, "--verify", []string{"-1"}},
		{masks, "--eos", []string{"-2", "2048", huge}},
		{benchLM, "--batch", []string{"-1", "0", "100000", huge}},
		{benchLM, "--prompt-len", []string{"-1", "0", "600"}},
		{benchLM, "--steps", negZero},
		{benchLM, "--threads", neg},
		{benchLM, "--max-seq", []string{"-1", "0", huge}},
		{benchSample, "--k", negZero},
		{benchSample, "--chains", []string{"-1", "0", "10000000"}},
		{benchSample, "--max-new-tokens", negZero},
		{tokBench, "--mb", []string{"-1", "0", notANum, inf, hugeF}},
		{tokBench, "--passes", negZero},
		{seeds, "-n", negZero},
		{seeds, "-depth", neg},
		{storeSeeds, "-n", negZero},
		{storeSeeds, "--k", []string{"-1"}},
		{validity, "-n", negZero},
		{validity, "-depth", neg},
		{fuzzRun, "--trials", neg},
		{fuzzRun, "--snapshots", negZero},
		{fuzzRun, "--exec-timeout", []string{"-1s"}},
		{train, "--steps", negZero},
		{train, "--minutes", []string{"-1", notANum, inf}},
		{eval, "--n", negZero},
		{eval, "--max-tokens", negZero},
		{eval, "--fuzz-max-tokens", negZero},
		{gsample, "-n", []string{"-1", notANum}},
		{gsample, "-depth", neg},
		{expRun, "--limit", []string{"-1", notANum}},
		{expRun, "--shard", []string{"-1/2", "2/2", "0/0", "x"}},
	}
	var out []misuse
	for _, s := range specs {
		for _, v := range s.bad {
			args := append(append([]string{}, s.base...), s.flag, v)
			// The flag package names a flag with one dash.
			out = append(out, misuse{name: strings.Join(s.base[:min(2, len(s.base))], " ") + " " + s.flag + " " + v,
				args: args, code: -1, want: strings.TrimLeft(s.flag, "-")})
		}
	}
	return out
}

// pathMisuses give path flags a directory, a device, a missing or huge
// file, or a file of the user's.
func pathMisuses() []misuse {
	var out []misuse
	add := func(name, want string, code int, args ...string) {
		out = append(out, misuse{name: name, args: args, code: code, want: want})
	}
	s := func(extra ...string) []string {
		return append([]string{"sample", "--grammar", "{gr}", "--prompt", "hi", "--model", "{tiny}", "--n", "1", "--max-new-tokens", "4", "--quiet"}, extra...)
	}
	for _, p := range []struct{ path, want string }{
		{"{sb}/dir", "is a directory"}, {"/dev/zero", "not a regular file"}, {"{sb}/missing.gbnf", "no such file"},
	} {
		add("sample --grammar "+p.path, p.want, 1, s("--grammar", p.path)...)
		add("bench masks --grammar "+p.path, p.want, 1, "bench", "masks", "--tokenizer", "{tiny}/tokenizer.json", "--grammar", p.path, "--ids", "{sb}/ids.txt")
		add("bench masks --ids "+p.path, p.want, 1, "bench", "masks", "--tokenizer", "{tiny}/tokenizer.json", "--grammar", "{repo}/grammar/json.gbnf", "--ids", p.path)
		add("grammar check "+p.path, p.want, 1, "grammar", "check", p.path)
		add("grammar sample "+p.path, p.want, 1, "grammar", "sample", p.path)
	}
	add("experiment run /dev/zero", "CONFIG /dev/zero: is not a regular file", 1, "experiment", "run", "/dev/zero")
	add("tokenize --tokenizer /dev/zero", "--tokenizer /dev/zero", 1, "tokenize", "--tokenizer", "/dev/zero")
	add("bench masks --tokenizer DIR", "--tokenizer {sb}/dir", 1, "bench", "masks", "--tokenizer", "{sb}/dir", "--grammar", "{repo}/grammar/json.gbnf", "--ids", "{sb}/ids.txt")
	add("sample --grammar /dev/null", "/dev/null", 1, s("--grammar", "/dev/null")...)
	add("sample --prompt DIR", "--prompt {sb}/dir: is a directory", 1, s("--prompt", "{sb}/dir")...)
	add("sample --prompt /dev/zero", "--prompt /dev/zero", 1, s("--prompt", "/dev/zero")...)
	add("sample --prompt mistyped path", `--prompt "{sb}/promt.txt" is not a file`, 0, s("--prompt", "{sb}/promt.txt", "--out", "{sb}/new/o.jsonl")...)
	add("sample --out DIR", "--out {sb}/dir is a directory", 1, s("--out", "{sb}/dir")...)
	add("sample --out /dev/null", "--out /dev/null is not a regular file", 1, s("--out", "/dev/null")...)
	add("sample --out user file", "--out {sb}/notes.txt exists and is not empty", 1, s("--out", "{sb}/notes.txt")...)
	add("sample --out user file --resume", "{sb}/notes.txt:1", 1, s("--out", "{sb}/notes.txt", "--resume")...)
	add("sample --out unterminated user file --resume", "{sb}/raw.txt:1", 1, s("--out", "{sb}/raw.txt", "--resume")...)
	add("sample --model DIR", "config.json", 1, "sample", "--grammar", "{gr}", "--prompt", "hi", "--model", "{sb}/dir")
	add("sample --model /dev/null", "/dev/null", 1, "sample", "--grammar", "{gr}", "--prompt", "hi", "--model", "/dev/null")
	add("analyze --out .", "README.md exists and was not written by gasp", 1, "analyze", "quick", "--store", "{repo}/mcmc/quick", "--out", "{sb}", "--resamples", "2")
	add("analyze --out user file", "not a directory", 1, "analyze", "quick", "--store", "{repo}/mcmc/quick", "--out", "{sb}/existing.md", "--resamples", "2")
	add("analyze --store user dir", "not a task or method name", 1, "analyze", "quick", "--store", "{sb}", "--out", "{sb}/new/a")
	add("demo --analysis user file", "not a directory", 1, "demo", "--task", "testdata/demo-task", "--model", "{tiny}", "--runs", "2", "--k", "1",
		"--max-new-tokens", "4", "--out", "{sb}/new/store", "--analysis", "{sb}/existing.md", "--quiet")
	add("demo --analysis user dir", "README.md exists and was not written by gasp", 1, "demo", "--task", "testdata/demo-task", "--model", "{tiny}",
		"--runs", "2", "--k", "1", "--max-new-tokens", "4", "--out", "{sb}/new/store", "--analysis", "{sb}", "--quiet")
	add("demo --out store with a user LOCK", "not a lock file", 1, "demo", "--task", "testdata/demo-task", "--model", "{tiny}", "--runs", "2",
		"--k", "1", "--max-new-tokens", "4", "--out", "{sb}/userlock", "--analysis", "{sb}/new/a", "--quiet")
	add("experiment run --store with a user LOCK", "not a lock file", 1, "experiment", "run", "{sb}/exp-small.json", "--store", "{sb}/userlock")
	add("experiment run CONFIG DIR", "{sb}/dir", 1, "experiment", "run", "{sb}/dir")
	add("experiment run runs 1e12", "needs", 1, "experiment", "run", "{sb}/exp.json", "--store", "{sb}/new/store")
	add("fuzz seeds --out non-empty", "--out {sb}/seeds is not empty", 1, "fuzz", "seeds", "--target", "sql", "--root", "{repo}", "-n", "3", "--out", "{sb}/seeds")
	add("fuzz seeds --out user file", "not a directory", 1, "fuzz", "seeds", "--target", "sql", "--root", "{repo}", "-n", "3", "--out", "{sb}/notes.txt")
	add("fuzz run --out user dir", "which gasp fuzz run did not write", 1, "fuzz", "run", "--target", "xml", "--seeds", "{sb}/seeds", "--out", "{sb}", "--toolchain", "{sb}/new/tc")
	add("fuzz table huge k", "out of range", 1, "fuzz", "table", "{sb}/fuzzk")
	add("fuzz table over a user's tables.md", "tables.md exists and was not written by gasp", 1, "fuzz", "table", "{sb}/fuzzuser")
	add("train-tiny --out user dir", "holds no model to replace", 1, "train-tiny", "--root", "{repo}", "--out", "{sb}", "--steps", "1")
	add("tokenize --tokenizer DIR", "{sb}/dir", 1, "tokenize", "--tokenizer", "{sb}/dir")
	add("bench tokenize --text /dev/zero", "--text /dev/zero", 1, "bench", "tokenize", "--tokenizer", "{tiny}/tokenizer.json", "--passes", "1", "--mb", "0.001", "--text", "/dev/zero")
	add("logits NaN weights", "not finite", 1, "logits", "--model", "{fx}/nanmodel", "--ids", "1 2 3")
	add("sample NaN weights", "not finite", 1, "sample", "--grammar", "{gr}", "--prompt", "hi", "--model", "{fx}/nanmodel", "--n", "1", "--max-new-tokens", "4")
	add("eval-tiny NaN weights", "held-out perplexity NaN", 1, "eval-tiny", "--model", "{fx}/nanmodel", "--root", "{repo}", "--n", "1")
	add("logits num_hidden_layers 1e9", "needs", 1, "logits", "--model", "{fx}/hugemodel", "--ids", "1 2 3")
	add("sample --batch beyond memory", "--batch 100000", 1, s("--n", "100000", "--batch", "100000")...)
	return out
}

// storeMisuses are run stores a writer of pkg/runs never leaves: each must
// be an error naming the file and line, or the directory.
func storeMisuses() []misuse {
	var out []misuse
	for _, c := range []struct{ store, want string }{
		{"dup", "gcd.jsonl:3: corrupt run record: second record of k 0, run 1 (the first is on line 2)"},
		{"conflict", "gcd.jsonl:3: corrupt run record: second record of k 0, run 1"},
		{"negrun", "gcd.jsonl:3: corrupt run record: run = -1 < 0"},
		{"outgrid", "outside the grid of experiment.json (runs 0…1)"},
		{"outk", "outside the grid of experiment.json (k ≤ 1)"},
		{"lower", "CP%2fx: not a task or method name"},
		{"badesc", "bad%ZZ: not a task or method name"},
		{"hidden", ".hidden: not a task or method name"},
		{"complete-bad-last", "gcd.jsonl:3: corrupt run record"},
	} {
		out = append(out, misuse{name: "analyze store " + c.store, code: 1, want: c.want,
			args: []string{"analyze", "x", "--store", "{fx}/stores/" + c.store, "--out", "{sb}/new/a", "--resamples", "2"}})
	}
	return out
}

// TestMisuse runs every misuse against a fresh sandbox.
func TestMisuse(t *testing.T) {
	repo := misuseRepo(t)
	fx := t.TempDir()
	fixtures(t, repo, fx)
	cases := append(append(numericMisuses(), pathMisuses()...), storeMisuses()...)
	// The repository's committed data and the shared fixtures must come
	// out as they went in.
	shared := []string{filepath.Join(repo, "mcmc"), filepath.Join(repo, "analysis"), filepath.Join(repo, "data", "models", "tiny"),
		filepath.Join(repo, "pkg", "cli", "testdata"), fx}
	committed := snapshot(t, shared...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sb := newSandbox(t, repo)
			before := snapshot(t, sb)
			expand := strings.NewReplacer("{sb}", sb, "{fx}", fx, "{repo}", repo, "{tiny}", filepath.Join(repo, "data", "models", "tiny"),
				"{gr}", filepath.Join(repo, "data", "gad", "SLIA", "lastname", "grammar.ebnf"))
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = expand.Replace(a)
			}
			code, _, errOut := gaspNoPanic(args...)
			checkOutcome(t, args, code, errOut, c.code, expand.Replace(c.want))
			checkOnlyOutput(t, args, sb, before, snapshot(t, sb))
		})
	}
	for _, d := range diffSnapshots(committed, snapshot(t, shared...)) {
		t.Errorf("the misuse suite changed %s, which no case writes", d)
	}
}

// misuseRepo skips a misuse suite in -short mode (it runs the commands) and returns the repository's root.
func misuseRepo(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("the misuse suite runs the commands")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// checkOutcome reports a command of the misuse suite that panicked or ran
// out of memory, exited with another status than wantCode (-1: any but 0),
// or whose message does not say want. The message is stderr before the
// usage text, which names every flag.
func checkOutcome(t *testing.T, args []string, code int, errOut string, wantCode int, want string) {
	t.Helper()
	message, _, _ := strings.Cut(errOut, "usage: ")
	switch {
	case strings.Contains(errOut, "panic") || strings.Contains(errOut, "fatal error"):
		t.Errorf("gasp %q failed:\n%s", args, tail(errOut))
	case wantCode == -1 && code == 0 || wantCode >= 0 && code != wantCode:
		t.Errorf("gasp %q: exit %d, want %d; stderr:\n%s", args, code, wantCode, tail(errOut))
	case !strings.Contains(message, want):
		t.Errorf("gasp %q: stderr does not say %q:\n%s", args, want, tail(errOut))
	}
}

// checkOnlyOutput reports what a command changed in its sandbox sb outside
// sb/new/, its output directory: the user's files must stay as they were.
func checkOnlyOutput(t *testing.T, args []string, sb string, before, after map[string]string) {
	t.Helper()
	for _, d := range diffSnapshots(before, after) {
		if !strings.HasPrefix(d, filepath.Join(sb, "new")+"/") {
			t.Errorf("gasp %q changed %s, which is not its output", args, d)
		}
	}
}

// gaspNoPanic is gasp, with a panic reported in stderr instead of ending
// the test binary.
func gaspNoPanic(args ...string) (code int, stdout, stderr string) {
	defer func() {
		if r := recover(); r != nil {
			code, stderr = 99, fmt.Sprintf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return gasp(args...)
}

// snapshot maps every file under roots to a digest of its contents and
// mode (directories and their mode included); a file of more than 64 MiB
// (a sparse one some cases make) is known by its mode, size and time, not
// read.
func snapshot(t *testing.T, roots ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			switch {
			case !d.Type().IsRegular():
				out[path] = fi.Mode().String()
				return nil
			case fi.Size() > 64<<20:
				out[path] = fmt.Sprint(fi.Mode(), fi.Size(), fi.ModTime())
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out[path] = fmt.Sprintf("%s %x", fi.Mode(), sha256.Sum256(b))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// diffSnapshots lists the paths created, removed or changed.
func diffSnapshots(a, b map[string]string) []string {
	var out []string
	for p, v := range a {
		if w, ok := b[p]; !ok {
			out = append(out, p+" (removed)")
		} else if w != v {
			out = append(out, p+" (changed)")
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, p)
		}
	}
	return out
}

// TestMisuseResume resumes a sample file and a demo store with another
// setting, method or task: each must be refused, naming what differs, and
// leave the file as it was.
func TestMisuseResume(t *testing.T) {
	if testing.Short() {
		t.Skip("the misuse suite runs the commands")
	}
	repo, _ := filepath.Abs("../..")
	tiny := filepath.Join(repo, "data", "models", "tiny")
	gr := filepath.Join(repo, "data", "gad", "SLIA", "lastname", "grammar.ebnf")
	dir := t.TempDir()
	out := filepath.Join(dir, "f.jsonl")
	base := []string{"sample", "--grammar", gr, "--prompt", "hi", "--model", tiny, "--n", "2", "--max-new-tokens", "4", "--quiet", "--out", out}
	if code, _, errOut := gasp(base...); code != 0 {
		t.Fatalf("gasp %q: exit %d: %s", base, code, errOut)
	}
	demoStore := filepath.Join(dir, "store")
	demo := []string{"demo", "--task", "testdata/demo-task", "--model", tiny, "--runs", "2", "--k", "1", "--max-new-tokens", "4",
		"--out", demoStore, "--analysis", filepath.Join(dir, "analysis"), "--quiet", "--resamples", "2"}
	if code, _, errOut := gasp(demo...); code != 0 {
		t.Fatalf("gasp %q: exit %d: %s", demo, code, errOut)
	}
	before := snapshot(t, dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(base, "--resume", "--temperature", "0.5"), "temperature was 1, now 0.5"},
		{append(base, "--resume", "--top-p", "0.9"), "top-p was 1, now 0.9"},
		{append(base, "--resume", "--max-new-tokens", "5"), "max-new-tokens was 4, now 5"},
		{append(base, "--resume", "--prompt", "hello"), "prompt was"},
		{append(base, "--resume", "--seed", "2"), "another --seed than 2"},
		{append(base, "--resume", "--method", "asap"), `holds runs of task "SLIA/lastname", method "gcd", not of task "SLIA/lastname", method "asap"`},
		{append(base, "--resume", "--task", "other"), `not of task "other"`},
		{append(base, "--resume", "--first", "9223372036854775806"), "--first 9223372036854775806 + --n 2 overflows"},
		{base, "exists and is not empty"},
		{append(demo, "--resume", "--max-new-tokens", "5"), "max-new-tokens was 4, now 5"},
		{append(demo, "--resume", "--seed", "3"), "another --seed than 3"},
	} {
		code, _, errOut := gaspNoPanic(c.args...)
		if code == 0 || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "panic") {
			t.Errorf("gasp %q: exit %d, stderr:\n%s\nwant a refusal saying %q", c.args, code, errOut, c.want)
		}
	}
	for _, d := range diffSnapshots(before, snapshot(t, dir)) {
		t.Errorf("a refused resume changed %s", d)
	}
}
