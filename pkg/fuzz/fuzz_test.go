package fuzz

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
)

func compile(t *testing.T, target string) *grammar.Grammar {
	t.Helper()
	rel, err := GrammarFile(target)
	if err != nil {
		t.Fatal(err)
	}
	g, warnings, err := grammar.CompileFile(filepath.Join("..", "..", rel), grammar.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("%s: warnings: %v", rel, warnings)
	}
	return g
}

// TestGrammars checks that the grammars compile and that their samples have
// the paper's mandatory parts and parse with the project's Earley parser.
func TestGrammars(t *testing.T) {
	musts := map[string][]string{
		"xml": {"<!DOCTYPE ", "<!ENTITY ", "<!ELEMENT "},
		"sql": {"set testdir [file dirname $argv0]\nsource $testdir/tester.tcl\n", "\nset ::timeout 60000\n", "finish_test\n"},
	}
	for _, target := range Targets() {
		t.Run(target, func(t *testing.T) {
			g := compile(t, target)
			for i, s := range mustSeeds(t, g, 50, 7, defaultDepth(t, target)) {
				for _, m := range musts[target] {
					if !strings.Contains(string(s), m) {
						t.Fatalf("sample %d lacks %q:\n%s", i, m, s)
					}
				}
				if len(s) > 1<<20 {
					t.Errorf("sample %d is %d bytes", i, len(s))
				}
				if _, err := earley.Parse(g, s); err != nil {
					t.Fatalf("sample %d does not parse: %v\n%s", i, err, s)
				}
			}
		})
	}
}

func TestGrammarSeedsDeterministic(t *testing.T) {
	g := compile(t, "xml")
	a := mustSeeds(t, g, 5, 3, 10)
	b := mustSeeds(t, g, 8, 3, 10)
	for i := range a {
		if string(a[i]) != string(b[i]) {
			t.Fatalf("seed %d depends on n", i)
		}
	}
}

func TestQueueTime(t *testing.T) {
	for name, want := range map[string]int64{
		"id:000123,src:000001,time:4567,execs:89,op:havoc,rep:2,+cov": 4567,
		"id:000000,time:0,execs:0,orig:seed-0000.xml":                 0,
		"id:000001,orig:seed-0001.xml":                                0,
	} {
		if got := queueTime(name); got != want {
			t.Errorf("queueTime(%q) = %d, want %d", name, got, want)
		}
	}
}

func TestBootstrapCI(t *testing.T) {
	if ci := bootstrapCI([]float64{3}); ci != [2]float64{3, 3} {
		t.Errorf("one trial: %v", ci)
	}
	xs := []float64{10, 11, 12, 13, 14}
	ci := bootstrapCI(xs)
	if !(ci[0] < 12 && 12 < ci[1] && ci[0] >= 10 && ci[1] <= 14) {
		t.Errorf("bootstrapCI(%v) = %v", xs, ci)
	}
	if bootstrapCI(xs) != ci {
		t.Error("not deterministic")
	}
}

func TestTclSyntaxError(t *testing.T) {
	for msg, want := range map[string]bool{
		`invalid command name "do_exec"`:              true,
		`missing close-brace`:                         true,
		`wrong # args: should be "catchsql sql ?db?"`: true,
		`no such table: t1`:                           false,
		`cannot commit - no transaction is active`:    false,
	} {
		if got := TclSyntaxError(msg); got != want {
			t.Errorf("TclSyntaxError(%q) = %v", msg, got)
		}
	}
}

// toolchain returns the fuzz toolchain named by $GASP_FUZZ_TOOLCHAIN. It
// skips the test when the variable is unset, except under CI=true, where
// scripts/test.sh must have set it up.
func toolchain(t *testing.T) *Toolchain {
	t.Helper()
	dir := os.Getenv(ToolchainEnv)
	if dir == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but $%s is not set: scripts/test.sh runs scripts/fuzz-setup.sh and sets it", ToolchainEnv)
		}
		t.Skipf("no fuzz toolchain: run scripts/fuzz-setup.sh and set %s=.cache/fuzz", ToolchainEnv)
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join("..", "..", dir)
	}
	tc, err := OpenToolchain(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckSandbox(context.Background()); err != nil {
		t.Fatal(err)
	}
	return tc
}

// TestSandboxPlantedSeed runs a hostile test script through the sql target,
// both as a plain execution and as a seed of a coverage run: it tries to
// delete and overwrite a file outside the sandbox, write to $HOME, open a
// socket to a listener on this machine, create an interpreter, and make
// SQLite write files outside. Nothing may change, and the run must go on.
func TestSandboxPlantedSeed(t *testing.T) {
	tc := toolchain(t)
	ctx := context.Background()

	// The canary lies in the toolchain directory, which the sandbox sees
	// (read-only); the test's temporary directory it does not see at all.
	canaryDir, err := os.MkdirTemp(tc.Dir, "planted-canary-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(canaryDir)
	canary := filepath.Join(canaryDir, "canary")
	if err := os.WriteFile(canary, []byte("intact\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	homeFiles := []string{filepath.Join(home, "gasp-planted-home"), filepath.Join(home, "gasp-planted-home.db")}
	for _, f := range homeFiles {
		os.Remove(f)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	tmpl, err := os.ReadFile(filepath.Join("testdata", "planted.tcl.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	planted := strings.NewReplacer("@CANARY@", canary, "@HOME@", home, "@PORT@", port).Replace(string(tmpl))

	// A plain execution, to see what each attempt did.
	work := t.TempDir()
	target, err := tc.Target("sql")
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(work, "planted.test")
	if err := os.WriteFile(in, []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	execs, err := tc.runBatch(ctx, target, target.AFLBin, work, []string{in}, true)
	if err != nil {
		t.Fatal(err)
	}
	out := string(execs[0].out)
	t.Logf("planted seed output:\n%s", out)
	if n := strings.Count(out, "attempt "); n != 11 {
		t.Errorf("%d attempts reported, want 11", n)
	}
	// Writes to $HOME may succeed inside the sandbox (its $HOME is an empty
	// in-memory file system), as checked below; everything else must fail.
	for _, a := range []string{"file-delete", "raw-file-delete", "exec-rm", "open-canary", "raw-open-canary",
		"write-env-home", "socket", "interp", "sql-vacuum-into"} {
		if !strings.Contains(out, "attempt "+a+": blocked") {
			t.Errorf("attempt %s was not blocked", a)
		}
	}
	if !finishRe.MatchString(out) || !strings.Contains(out, "0 errors out of") {
		t.Errorf("the planted script did not run on to finish_test with its test passing")
	}

	// A coverage run with the planted seed and a normal one.
	seeds := t.TempDir()
	if err := os.WriteFile(filepath.Join(seeds, "a-planted.test"), []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	g := compile(t, "sql")
	if err := WriteSeeds(seeds, ".test", mustSeeds(t, g, 2, 1, defaultDepth(t, "sql"))); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(ctx, tc, Options{Target: "sql", Seeds: seeds, Time: 0, Out: t.TempDir()})
	if err != nil {
		t.Fatalf("run with the planted seed: %v", err)
	}
	if rep.BranchPct <= 0 || rep.Seeds != 3 {
		t.Errorf("run with the planted seed: %d seeds, branch %.2f%%", rep.Seeds, rep.BranchPct)
	}

	if data, err := os.ReadFile(canary); err != nil || string(data) != "intact\n" {
		t.Errorf("canary outside the sandbox changed: %q, %v", data, err)
	}
	if ents, _ := os.ReadDir(canaryDir); len(ents) != 1 {
		t.Errorf("files appeared next to the canary: %v", ents)
	}
	for _, f := range homeFiles {
		if _, err := os.Stat(f); err == nil {
			os.Remove(f)
			t.Errorf("the planted seed wrote %s", f)
		}
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("the planted seed opened %d connections to the host", n)
	}
}

// TestQuickProtocol is the smoke test of the quick protocol on both
// targets: 100 grammar-baseline seeds, coverage of the seeds alone, then a
// short AFL++ run (20 s, or $GASP_FUZZ_QUICK_TIME).
func TestQuickProtocol(t *testing.T) {
	tc := toolchain(t)
	quick, err := LookupProtocol("quick")
	if err != nil {
		t.Fatal(err)
	}
	d := quick.Time
	if s := os.Getenv("GASP_FUZZ_QUICK_TIME"); s != "" {
		if d, err = time.ParseDuration(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, target := range Targets() {
		t.Run(target, func(t *testing.T) {
			tg, err := tc.Target(target)
			if err != nil {
				t.Fatal(err)
			}
			seeds := t.TempDir()
			if err := WriteSeeds(seeds, tg.Ext, mustSeeds(t, compile(t, target), 100, 1, defaultDepth(t, target))); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			base, err := Run(ctx, tc, Options{Target: target, Seeds: seeds, Out: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			rep, err := Run(ctx, tc, Options{Target: target, Seeds: seeds, Time: d, Trials: 1, Snapshots: 4, Out: out})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s %s: seeds only: branch %.2f%% line %.2f%% function %.2f%%; %v AFL++ (%d execs, queue %d): branch %.2f%% line %.2f%% function %.2f%%",
				target, tg.Library, tg.Version, base.BranchPct, base.LinePct, base.FunctionPct,
				d, rep.TrialReport[0].Execs, rep.TrialReport[0].Queue, rep.BranchPct, rep.LinePct, rep.FunctionPct)
			data, err := os.ReadFile(filepath.Join(out, "coverage.json"))
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"branch_pct", "line_pct", "function_pct", "over_time"} {
				if _, ok := doc[k]; !ok {
					t.Errorf("coverage.json lacks %s", k)
				}
			}
			if base.BranchPct <= 0 || base.LinePct <= 0 || base.FunctionPct <= 0 {
				t.Errorf("seeds alone: %+v", base.Coverage)
			}
			if len(rep.OverTime) != 5 || rep.OverTime[0].Seconds != 0 || rep.OverTime[4].Seconds != d.Seconds() {
				t.Errorf("over_time: %+v", rep.OverTime)
			}
			for k := 1; k < len(rep.OverTime); k++ {
				if rep.OverTime[k].BranchPct < rep.OverTime[k-1].BranchPct {
					t.Errorf("branch coverage decreases over time: %+v", rep.OverTime)
				}
			}
			if rep.BranchPct < base.BranchPct-0.5 {
				t.Errorf("AFL++ run covers less than the seeds: %.2f%% < %.2f%%", rep.BranchPct, base.BranchPct)
			}
			if rep.TrialReport[0].Execs == 0 {
				t.Error("afl-fuzz reports no executions")
			}
			if got := rep.TrialReport[0].ExecTimeoutMs; got != tg.Timeout {
				t.Errorf("exec timeout %d ms, want the target's %d ms", got, tg.Timeout)
			}
			// afl-fuzz must have kept the fixed timeout, not calibrated its own.
			stats := filepath.Join(out, "trial-0", "work", "afl", "default", "fuzzer_stats")
			if got := aflStat(stats, "exec_timeout"); got != int64(tg.Timeout) {
				t.Errorf("afl-fuzz's exec_timeout is %d ms, want %d", got, tg.Timeout)
			}
		})
	}
}

// TestFastSeeds checks that a seed slower than half the execution timeout
// is left out of the AFL++ run, and the others are not.
func TestFastSeeds(t *testing.T) {
	tc := toolchain(t)
	tg, err := tc.Target("sql")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	seeds := mustSeeds(t, compile(t, "sql"), 2, 1, defaultDepth(t, "sql"))
	seeds = append(seeds, []byte("set testdir [file dirname $argv0]\nsource $testdir/tester.tcl\nafter 700\nfinish_test\n"))
	if err := WriteSeeds(filepath.Join(work, "in"), ".test", seeds); err != nil {
		t.Fatal(err)
	}
	files, err := seedFiles(filepath.Join(work, "in"))
	if err != nil {
		t.Fatal(err)
	}
	dir, slow, err := tc.fastSeeds(context.Background(), tg, work, files, time.Second/2)
	if err != nil {
		t.Fatal(err)
	}
	if len(slow) != 1 || slow[0] != "seed-0002.test" {
		t.Errorf("slow seeds %v, want [seed-0002.test]", slow)
	}
	if kept, _ := seedFiles(dir); len(kept) != 2 {
		t.Errorf("%d seeds kept, want 2", len(kept))
	}
}

// TestValidity measures, on a small sample, the fraction of grammar samples
// the libraries accept (gasp fuzz validity measures it on 1,000).
func TestValidity(t *testing.T) {
	tc := toolchain(t)
	for _, target := range Targets() {
		t.Run(target, func(t *testing.T) {
			res, err := tc.Validity(context.Background(), target, mustSeeds(t, compile(t, target), 100, 1, defaultDepth(t, target)), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s: %d/%d accepted, %d strict; errors %v", target, res.Version, res.Accepted, res.Samples, res.Strict, res.Errors)
			if res.Fraction < 0.5 {
				t.Errorf("only %.0f%% of the grammar samples are accepted", 100*res.Fraction)
			}
		})
	}
}

// TestPrompts checks that the example solutions of the few-shot prompts are
// in their grammar's language and appear verbatim in the prompts.
func TestPrompts(t *testing.T) {
	for target, example := range map[string]string{"xml": "xml-example.xml", "sql": "sql-example.tcl"} {
		g := compile(t, target)
		ex, err := os.ReadFile(filepath.Join("..", "..", "data", "fuzz", example))
		if err != nil {
			t.Fatal(err)
		}
		prompt, err := os.ReadFile(filepath.Join("..", "..", "data", "fuzz", target+"-prompt.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(prompt), string(ex)) {
			t.Errorf("%s-prompt.txt does not contain %s", target, example)
		}
		if _, err := earley.Parse(g, ex); err != nil {
			t.Errorf("%s is not in the language of the %s grammar: %v", example, target, err)
		}
	}
}

// mustSeeds is GrammarSeeds, failing t on an error.
func mustSeeds(t *testing.T, g *grammar.Grammar, n int, seed uint64, depth int) [][]byte {
	t.Helper()
	seeds, err := GrammarSeeds(g, n, seed, depth)
	if err != nil {
		t.Fatal(err)
	}
	return seeds
}

// defaultDepth is DefaultDepth(target), which must know the target.
func defaultDepth(t *testing.T, target string) int {
	t.Helper()
	d, err := DefaultDepth(target)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestNamesAtTheBoundary checks that every target has a grammar and a depth,
// that both protocols exist, and that an unknown name is an error naming it.
func TestNamesAtTheBoundary(t *testing.T) {
	for _, target := range Targets() {
		if _, err := GrammarFile(target); err != nil {
			t.Error(err)
		}
		if d, err := DefaultDepth(target); err != nil || d <= 0 {
			t.Errorf("DefaultDepth(%q) = %d, %v", target, d, err)
		}
	}
	for _, name := range []string{"quick", "paper"} {
		if p, err := LookupProtocol(name); err != nil || p.Time <= 0 || p.Trials < 1 {
			t.Errorf("LookupProtocol(%q) = %+v, %v", name, p, err)
		}
	}
	if _, err := DefaultDepth("json"); err == nil || !strings.Contains(err.Error(), `"json"`) {
		t.Errorf("DefaultDepth(json): %v", err)
	}
	if _, err := LookupProtocol("slow"); err == nil || !strings.Contains(err.Error(), `"slow"`) {
		t.Errorf("LookupProtocol(slow): %v", err)
	}
	a := Targets()
	a[0] = "changed"
	if Targets()[0] != "xml" {
		t.Error("Targets shares its slice with callers")
	}
}
