//go:build linux

package cli

// Sizes a user controls (resamples, particles × rows, k, a grammar's
// sentence length, tokenize's input and lines) are bounded before
// anything of that size is allocated (issue #33, F12–F17, F28, F29). Each
// case runs gasp as a child process in an address space of boundedMemory
// bytes (ulimit -v): an estimate that is missing or wrong shows as a
// "fatal error: out of memory" there, not as a machine brought down.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// boundedMemory is the address space of the child processes: enough for
// the cases' work on the embedded model, well below any case's unbounded
// demand.
const boundedMemory = 3 << 30

// A sizeMisuse is a command line given a size beyond its bound.
type sizeMisuse struct {
	misuse
	stdin func() io.Reader // standard input, or nil
}

// sizeMisuses are the campaign's cases and variants of each.
func sizeMisuses() []sizeMisuse {
	var out []sizeMisuse
	add := func(code int, want string, stdin func() io.Reader, args ...string) {
		out = append(out, sizeMisuse{misuse{name: strings.Join(args, " "), args: args, code: code, want: want}, stdin})
	}
	// F12: --resamples of analyze-true, as analyze bounds it.
	at := []string{"analyze-true", "--store", "{repo}/mcmc/quick,{repo}/mcmc/quick-smc", "--exact", "{repo}/mcmc/quick-true",
		"--out", "{sb}/new/o"}
	add(2, "--resamples must be in [1, 1000000], got "+huge, nil, append(at, "--resamples", huge)...)
	add(2, "--resamples must be in [1, 1000000], got 1000001", nil, append(at, "--resamples", "1000001")...)
	// F13: SMC's particles are rows of the memory check of sample.
	sample := []string{"sample", "--model", "{tiny}", "--grammar", "{gr}", "--prompt", "hi", "--max-new-tokens", "8", "--quiet"}
	add(1, "--batch 4 of --method smc-65536 (262144 rows): sampling (model {tiny}: 2.3 MiB of weights, KV caches of 262144 rows × 45 positions) needs 142.0 GiB", nil, append(sample, "--method", "smc-65536", "--n", "4", "--batch", "4")...)
	add(1, "--batch 64 of --method smc-awrs-4096 (262144 rows): sampling (model {tiny}: 2.3 MiB of weights, KV caches of 262144 rows × 45 positions) needs 142.0 GiB", nil,
		append(sample, "--method", "smc-awrs-4096", "--n", "64", "--batch", "64")...)
	// F14, F15: and of experiment run's grid, with its k and records.
	add(1, "experiment smc (runs 4, batch 4, k 1, 262144 rows for smc-65536)", nil, "experiment", "run", "{sb}/smc.json", "--store", "{sb}/new/s")
	add(1, "experiment smc0 (runs 8, batch 0, k 1, 262144 rows for smc-32768)", nil, "experiment", "run", "{sb}/smc0.json", "--store", "{sb}/new/s")
	add(1, "k must be in [1, 100000], got "+huge, nil, "experiment", "run", "{sb}/khuge.json", "--store", "{sb}/new/s")
	add(1, "experiment krecords (runs 100000, batch 0, k 100000) needs", nil, "experiment", "run", "{sb}/krecords.json", "--store", "{sb}/new/s")
	add(2, "--k "+huge+" out of range [0, 100000]", nil, append(sample, "--method", "mcmc-uniform", "--n", "1", "--k", huge)...)
	// F16, F17: a sentence's length, not only its depth, in grammar
	// sample and fuzz seeds; the repository's grammars at a large depth.
	add(1, "{sb}/cube.gbnf: sentence 0: grammar: a sentence longer than 1048576 bytes at depth limit 8", nil, "grammar", "sample", "-n", "1", "{sb}/cube.gbnf")
	add(1, "{sb}/expo.gbnf: sentence 0: grammar: a sentence longer than 1048576 bytes at depth limit 0", nil, "grammar", "sample", "-n", "1", "-depth", "0", "{sb}/expo.gbnf")
	add(1, "{sb}/empty.gbnf: sentence 0: grammar: a derivation of more than 16777216 steps", nil, "grammar", "sample", "-n", "1", "-depth", "0", "{sb}/empty.gbnf")
	add(1, "xml.gbnf: sentence 0: grammar: a sentence longer than 1048576 bytes at depth limit 1000", nil, "grammar", "sample", "-n", "1", "-depth", "1000", "{repo}/grammar/xml.gbnf")
	add(1, "grammar/sqlite-test.gbnf: sentence 0: grammar: a sentence longer than 1048576 bytes at depth limit 200; give a smaller -depth or a larger -max-len",
		nil, "grammar", "sample", "-depth", "200", "{repo}/grammar/sqlite-test.gbnf")
	add(1, "sentence 0: grammar: a sentence longer than 1000 bytes at depth limit 200", nil, "grammar", "sample", "-n", "5", "-depth", "200", "-max-len", "1000", "{repo}/grammar/sqlite-test.gbnf")
	add(2, "-max-len must be in [1, 1073741824], got "+huge, nil, "grammar", "sample", "-max-len", huge, "{gr}")
	add(1, "grammar/xml.gbnf: -depth 1000: sentence 2: grammar: a sentence longer than 1048576 bytes at depth limit 1000; give a smaller -depth", nil,
		"fuzz", "seeds", "--target", "xml", "--root", "{repo}", "-n", "5", "-depth", "1000", "--out", "{sb}/new/o")
	add(1, "grammar/sqlite-test.gbnf: -depth 1000: sentence 0: grammar: a sentence longer than 1048576 bytes", nil,
		"fuzz", "seeds", "--target", "sql", "--root", "{repo}", "-n", "5", "-depth", "1000", "--out", "{sb}/new/o")
	// F28, F29: tokenize's input, whole and per line, from the memory it
	// may use: here 3 GiB less the 1.5 GiB the Go runtime maps, / 64,
	// about 24 MiB; the bound depends on the runtime's mappings, the
	// message names it.
	tok := []string{"tokenize", "--tokenizer", "{tiny}/tokenizer.json"}
	add(1, "standard input: more than ", randomBytes(350<<20), tok...)
	add(1, "line 1: more than ", jsonLines(50_000_000), append(tok, "--jsonl")...) // the campaign's line
	add(1, "line 3: more than ", jsonLines(1, 2, 70<<20), append(tok, "--jsonl")...)
	add(0, "", jsonLines(8<<20, 8<<20, 12<<20), append(tok, "--jsonl")...)
	add(0, "", randomBytes(12<<20), tok...)
	return out
}

// randomBytes is n random bytes, made as they are read.
func randomBytes(n int64) func() io.Reader {
	return func() io.Reader {
		return io.LimitReader(rand.NewChaCha8([32]byte{1}), n)
	}
}

// jsonLines are JSON strings of "a", one a line, of the given lengths.
func jsonLines(lengths ...int) func() io.Reader {
	return func() io.Reader {
		var rs []io.Reader
		for _, n := range lengths {
			rs = append(rs, strings.NewReader(`"`), io.LimitReader(aReader{}, int64(n)), strings.NewReader("\"\n"))
		}
		return io.MultiReader(rs...)
	}
}

type aReader struct{}

func (aReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// sizeFixtures writes the cases' configurations and grammars into sb.
func sizeFixtures(t *testing.T, repo, sb string) {
	t.Helper()
	exp := func(name string, methods []string, k, runs, batch int) {
		b, _ := json.Marshal(map[string]any{
			"name": name, "protocol": "quick", "task_root": filepath.Join(repo, "data", "gad"), "tasks": []string{"SLIA/lastname"},
			"methods": methods, "k": k, "runs": runs, "batch": batch, "model": filepath.Join(repo, "data", "models", "tiny"),
			"template": "chat", "temperature": 1.0, "top_p": 1.0, "max_new_tokens": 8, "seed": 1, "lenient": true,
		})
		writeSandboxFile(t, filepath.Join(sb, name+".json"), b)
	}
	exp("smc", []string{"smc-65536"}, 1, 4, 4)
	exp("smc0", []string{"gcd", "smc-32768"}, 1, 8, 0)
	exp("khuge", []string{"mcmc-uniform"}, 1<<63-1, 1, 0)
	exp("krecords", []string{"mcmc-uniform"}, 100_000, 100_000, 0)
	writeSandboxFile(t, filepath.Join(sb, "cube.gbnf"), []byte("root ::= ((\"a\"{1000}){1000}){1000}\n"))
	var expo, empty strings.Builder
	for i := range 64 { // the shortest sentence of r0 has 2^64 bytes
		fmt.Fprintf(&expo, "r%d ::= r%d r%d\n", i, i+1, i+1)
		fmt.Fprintf(&empty, "r%d ::= r%d r%d\n", i, i+1, i+1)
	}
	expo.WriteString("r64 ::= \"x\"\n")
	empty.WriteString("r64 ::= \"\"\n") // and that of this one 0, after 2^64 steps
	writeSandboxFile(t, filepath.Join(sb, "expo.gbnf"), []byte("root ::= r0\n"+expo.String()))
	writeSandboxFile(t, filepath.Join(sb, "empty.gbnf"), []byte("root ::= r0\n"+empty.String()))
}

// TestMisuseSizes runs every size misuse as a child process in
// boundedMemory: each must exit with its code within a minute, say what
// is bounded and by how much, not panic, and change nothing of the
// user's.
func TestMisuseSizes(t *testing.T) {
	repo := misuseRepo(t)
	for _, c := range sizeMisuses() {
		t.Run(c.name, func(t *testing.T) {
			sb := newSandbox(t, repo)
			sizeFixtures(t, repo, sb)
			before := snapshot(t, sb)
			expand := strings.NewReplacer("{sb}", sb, "{repo}", repo, "{tiny}", filepath.Join(repo, "data", "models", "tiny"),
				"{gr}", filepath.Join(repo, "data", "gad", "SLIA", "lastname", "grammar.ebnf"))
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = expand.Replace(a)
			}
			var stdin io.Reader
			if c.stdin != nil {
				stdin = c.stdin()
			}
			code, errOut := gaspBounded(t, boundedMemory, time.Minute, stdin, args...)
			checkOutcome(t, args, code, errOut, c.code, expand.Replace(c.want))
			checkOnlyOutput(t, args, sb, before, snapshot(t, sb))
		})
	}
}

// gaspBounded runs gasp as a child process (see TestMain) with an address
// space of limit bytes, killed after d; code is -1 when it was killed.
func gaspBounded(t *testing.T, limit int64, d time.Duration, stdin io.Reader, args ...string) (code int, stderr string) {
	t.Helper()
	a, _ := json.Marshal(args)
	cmd := exec.Command("/bin/sh", "-c", fmt.Sprintf(`ulimit -v %d && exec "$0" -test.run='^$'`, limit>>10), os.Args[0])
	cmd.Env = append(os.Environ(), "GASP_TEST_MAIN="+string(a))
	var errOut bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, io.Discard, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(d, func() { cmd.Process.Kill() })
	defer timer.Stop()
	cmd.Wait()
	if !timer.Stop() {
		return -1, errOut.String() + fmt.Sprintf("\n(killed after %v)", d)
	}
	return cmd.ProcessState.ExitCode(), errOut.String()
}

// tail is the end of a long stderr (a goroutine dump).
func tail(s string) string {
	if len(s) > 3000 {
		return "…" + s[len(s)-3000:]
	}
	return s
}
