//go:build unix

package cli

// Files inside the directories a command is given (a model's, a task's, an
// authors' log's, a store's trie) are read as the files flags name are: a
// device, a FIFO, a directory or a file beyond the reader's limit is
// refused before it is read, with its path (issue #33, F18–F27).

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gasplab/gasp/pkg/runs"
)

// A badFile is a file replaced by one a reader must refuse.
type badFile int

const (
	devZero badFile = iota // a symbolic link to /dev/zero
	fifo                   // a FIFO no one writes
	sparse                 // a sparse file of 6 GiB, over every limit but the safetensors'
	dir                    // a directory
)

func (b badFile) String() string {
	return [...]string{"/dev/zero", "FIFO", "6 GiB", "directory"}[b]
}

// want is what a reader says of the bad file at path.
func (b badFile) want(path string) string {
	switch b {
	case sparse:
		return path + ": has 6442450944 bytes; at most"
	case dir:
		return path + ": is a directory"
	}
	return path + ": is not a regular file"
}

// put replaces path by the bad file.
func (b badFile) put(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	var err error
	switch b {
	case devZero:
		err = os.Symlink("/dev/zero", path)
	case fifo:
		err = syscall.Mkfifo(path, 0o644)
	case sparse:
		if err = os.WriteFile(path, nil, 0o644); err == nil {
			err = os.Truncate(path, 6<<30) // costs no disk
		}
	case dir:
		err = os.Mkdir(path, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// A fileMisuse is a command on a sandbox in which one file is bad.
type fileMisuse struct {
	name string
	file string // the file made bad, relative to the sandbox
	bad  badFile
	args []string // {sb}: the sandbox, {repo}: the repository
	code int      // the exit code; -1: any non-zero
	want string   // what stderr says, if not bad.want(the file)
}

// fileSandbox is a directory of a user's files that commands read: a copy
// of the embedded model (model/), an authors' log (authors/), a task root
// with a task (tasks/t/a) and an experiment on it (exp.json, cars.json),
// and a trie (t.trie) of a store.
func fileSandbox(t *testing.T, repo string) string {
	t.Helper()
	sb := t.TempDir()
	copyTree(t, filepath.Join(repo, "data", "models", "tiny"), filepath.Join(sb, "model"))
	copyTree(t, filepath.Join(repo, "pkg", "authors", "testdata"), filepath.Join(sb, "authors"))
	copyTree(t, filepath.Join(repo, "data", "gad", "SLIA", "lastname"), filepath.Join(sb, "tasks", "t", "a"))
	for name, methods := range map[string][]string{"exp.json": {"gcd"}, "cars.json": {"cars"}} {
		writeSandboxFile(t, filepath.Join(sb, name), []byte(fmt.Sprintf(`{"name": "files", "protocol": "quick",
			"task_root": %q, "tasks": ["t/a"], "methods": %q, "k": 1, "runs": 1, "model": %q,
			"template": "chat", "temperature": 1, "top_p": 1, "max_new_tokens": 4, "seed": 1, "lenient": true}`,
			filepath.Join(sb, "tasks"), methods, filepath.Join(sb, "model"))))
	}
	writeSandboxFile(t, filepath.Join(sb, "t.trie"), nil)
	st, err := runs.Open(filepath.Join(sb, "store"))
	if err != nil {
		t.Fatal(err)
	}
	for run := range 2 {
		if err := st.Append(storeRecord("gcd", 0, run)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	writeSandboxFile(t, filepath.Join(sb, "store", "experiment.json"), []byte(experimentJSON(repo, 2, 0, 1)))
	if err := os.Mkdir(filepath.Join(sb, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	return sb
}

// fileMisuses are the campaign's cases and their variants: every bad file
// in every place, through every command that reads it.
func fileMisuses() []fileMisuse {
	var out []fileMisuse
	add := func(file string, bads []badFile, args ...string) {
		for _, b := range bads {
			out = append(out, fileMisuse{name: fmt.Sprintf("%s as %s: %s", file, b, strings.Join(args[:2], " ")),
				file: file, bad: b, args: args, code: 1})
		}
	}
	all := []badFile{devZero, fifo, sparse, dir}
	imp := []string{"import", "authors", "{sb}/authors", "--out", "{sb}/new/store", "--task-root", "{repo}/data/gad", "--strict"}
	// F18, F19, F20: a log's run file; its variants in another style and
	// task directory. --strict refuses the import, naming it; without, the
	// import goes on without it (TestMisuseFilesImportSkips).
	for _, f := range authorsRunFiles {
		add(f, all, imp...)
	}
	// F21, F22, F23: a model directory's files, through every command
	// that opens a model.
	logits := []string{"logits", "--model", "{sb}/model", "--ids", "1 2 3"}
	doctor := []string{"doctor", "--model", "{sb}/model"}
	benchLM := []string{"bench", "lm", "--model", "{sb}/model", "--steps", "1", "--prompt-len", "4", "--batch", "1"}
	sample := []string{"sample", "--model", "{sb}/model", "--grammar", "{sb}/tasks/t/a/grammar.ebnf", "--prompt", "hi", "--n", "1",
		"--max-new-tokens", "4", "--quiet"}
	for _, cmd := range [][]string{logits, doctor, benchLM, sample} {
		add("model/config.json", all, cmd...)
		add("model/model.safetensors", []badFile{devZero, fifo, dir}, cmd...)
	}
	add("model/tokenizer.json", all, sample...)
	// F24, F25: a task's grammar and prompt in an experiment; F26, F27:
	// a trie, by flag and in a store.
	exp := []string{"experiment", "run", "{sb}/exp.json", "--store", "{sb}/new/store"}
	add("model/tokenizer.json", all, exp...)
	add("model/config.json", all, exp...)
	add("model/model.safetensors", []badFile{devZero, fifo, dir}, exp...)
	add("tasks/t/a/grammar.ebnf", all, exp...)
	add("tasks/t/a/prompt.txt", all, exp...)
	add("tasks/t/a/grammar.ebnf", all, "grammar", "check", "{sb}/tasks/t/a/grammar.ebnf")
	add("t.trie", all, append(sample, "--method", "cars", "--trie", "{sb}/t.trie")...)
	add("new/store/tries/cars/t/a.trie", all, "experiment", "run", "{sb}/cars.json", "--store", "{sb}/new/store")
	// A store's records: a line is bounded, not its file (F18's class).
	analyze := []string{"analyze", "x", "--store", "{sb}/store", "--out", "{sb}/new/a", "--resamples", "2"}
	out = append(out,
		fileMisuse{name: "store file as 6 GiB: analyze", file: "store/x/gcd.jsonl", bad: sparse, args: analyze, code: 1,
			want: "store/x/gcd.jsonl:1: corrupt run record: a line of more than 268435456 bytes; a record has less"},
		fileMisuse{name: "store file as FIFO: analyze", file: "store/x/gcd.jsonl", bad: fifo, args: analyze, code: 1,
			want: "store/x/gcd.jsonl is not a regular file"},
		fileMisuse{name: "store file as /dev/zero: analyze", file: "store/x/gcd.jsonl", bad: devZero, args: analyze, code: 1,
			want: "store/x/gcd.jsonl is not a regular file"})
	return out
}

// authorsRunFiles are the run files of the authors' logs that the file
// misuses replace: a new one, and one of the fixtures.
var authorsRunFiles = []string{
	"authors/runs_log/SLIA_name_combine_4_short-dcfc47e5-1/rs-2025-01-17_10-00-00/z.json",
	"authors/runs_log/SLIA_name_combine_4_short-dcfc47e5-1/prefix-2025-01-17_10-00-00/2025-01-17_10-00-00-000000-n3.json",
}

// TestMisuseFilesImportSkips: without --strict, an import of logs holding
// a bad run file ends (exit 0), imports the rest and names the file with
// what is wrong with it.
func TestMisuseFilesImportSkips(t *testing.T) {
	repo := misuseRepo(t)
	for _, f := range authorsRunFiles {
		for _, bad := range []badFile{devZero, fifo, sparse, dir} {
			t.Run(fmt.Sprintf("%s as %s", filepath.Base(f), bad), func(t *testing.T) {
				sb := fileSandbox(t, repo)
				path := filepath.Join(sb, f)
				bad.put(t, path)
				code, errOut, ok := gaspWithin(30*time.Second, "import", "authors", filepath.Join(sb, "authors"), "--out",
					filepath.Join(sb, "new", "store"), "--task-root", filepath.Join(repo, "data", "gad"))
				want := "gasp import: skipped " + bad.want(path)
				if !ok || code != 0 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "2 tasks") {
					t.Errorf("exit %d (ended: %v), want 0 and %q:\n%s", code, ok, want, errOut)
				}
			})
		}
	}
}

// TestMisuseFiles runs every file misuse against a fresh sandbox: each must
// exit 1 within the time limit (a FIFO must not block it), name the bad
// file and say what is wrong with it, and change nothing of the user's.
func TestMisuseFiles(t *testing.T) {
	repo := misuseRepo(t)
	for _, c := range fileMisuses() {
		t.Run(c.name, func(t *testing.T) {
			sb := fileSandbox(t, repo)
			path := filepath.Join(sb, c.file)
			c.bad.put(t, path)
			before := snapshot(t, sb)
			expand := strings.NewReplacer("{sb}", sb, "{repo}", repo)
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = expand.Replace(a)
			}
			code, errOut, ok := gaspWithin(30*time.Second, args...)
			if !ok {
				t.Fatalf("gasp %q did not end in 30 s (blocked on %s?)", args, path)
			}
			want := c.bad.want(path)
			if c.want != "" {
				want = c.want
			}
			checkOutcome(t, args, code, errOut, c.code, want)
			checkOnlyOutput(t, args, sb, before, snapshot(t, sb))
		})
	}
}

// gaspWithin is gaspNoPanic, given up on after d: ok is false when the
// command has not ended by then (it goes on in the background).
func gaspWithin(d time.Duration, args ...string) (code int, stderr string, ok bool) {
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, _, stderr := gaspNoPanic(args...)
		done <- result{code, stderr}
	}()
	select {
	case r := <-done:
		return r.code, r.stderr, true
	case <-time.After(d):
		return 0, "", false
	}
}
