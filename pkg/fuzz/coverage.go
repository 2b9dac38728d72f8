package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Coverage is the coverage of a library's own sources, in percent.
type Coverage struct {
	BranchPct   float64 `json:"branch_pct"`
	LinePct     float64 `json:"line_pct"`
	FunctionPct float64 `json:"function_pct"`
}

// execTimeout bounds one execution of a target during replay and validity
// checks.
const execTimeout = 10 * time.Second

// An execResult is the outcome of one execution in runBatch.
type execResult struct {
	code int           // exit status; 124 for a timeout
	out  []byte        // combined output, if kept
	dur  time.Duration // wall time of the execution, as the sandbox's shell saw it
}

// runBatch runs the target binary bin on each input inside the sandbox of
// the work directory, one after the other, in a fresh scratch directory for
// each, and returns each execution's exit status, wall time and, if
// keepOutput, its combined output. env is added to the sandbox's
// environment.
func (tc *Toolchain) runBatch(ctx context.Context, t *Target, bin, work string, inputs []string, keepOutput bool, env ...string) ([]execResult, error) {
	if err := t.prepare(work); err != nil {
		return nil, err
	}
	outDir := filepath.Join(work, "batch-out")
	if err := os.RemoveAll(outDir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	list := filepath.Join(work, "batch-inputs")
	if err := os.WriteFile(list, []byte(strings.Join(inputs, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	// The argument vector of one execution, with the input as "$f".
	var argv []string
	for _, a := range t.args(bin, "\x00", work) {
		if a == "\x00" {
			argv = append(argv, `"$f"`)
		} else {
			argv = append(argv, shellQuote(a))
		}
	}
	script := fmt.Sprintf(`i=0
while IFS= read -r f; do
	[ -n "$f" ] || continue
	rm -rf %[1]s/scratch && mkdir %[1]s/scratch && cd %[1]s/scratch
	s=$(date +%%s%%N)
	timeout -k 2 %[2]d %[3]s >%[4]s/$i.out 2>&1 </dev/null
	echo $? $(( $(date +%%s%%N) - s )) >%[4]s/$i.rc
	cd %[1]s
	i=$((i+1))
done <%[5]s
rm -rf %[1]s/scratch
`, shellQuote(work), int(execTimeout/time.Second), strings.Join(argv, " "), shellQuote(outDir), shellQuote(list))
	cmd := tc.sandbox(work, env...).Command(ctx, "sh", "-c", script)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("sandboxed batch: %v: %s", err, out)
	}
	res := make([]execResult, len(inputs))
	for i := range inputs {
		rc, err := os.ReadFile(filepath.Join(outDir, strconv.Itoa(i)+".rc"))
		if err != nil {
			return nil, fmt.Errorf("sandboxed batch: input %d did not run", i)
		}
		var ns int64
		if _, err := fmt.Sscan(string(rc), &res[i].code, &ns); err != nil {
			return nil, fmt.Errorf("sandboxed batch: input %d: bad status %q", i, rc)
		}
		res[i].dur = time.Duration(ns)
		if keepOutput {
			res[i].out, _ = os.ReadFile(filepath.Join(outDir, strconv.Itoa(i)+".out"))
		}
	}
	os.RemoveAll(outDir)
	return res, nil
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// profiler accumulates coverage profiles of one sequence of replays.
type profiler struct {
	tc      *Toolchain
	t       *Target
	work    string
	n       int    // batches so far
	profile string // the merged profile so far, "" before the first batch
}

// add replays inputs through the coverage build, merges their profiles into
// the accumulated one, and returns the cumulative coverage.
func (p *profiler) add(ctx context.Context, inputs []string) (Coverage, error) {
	raw := filepath.Join(p.work, fmt.Sprintf("raw-%d", p.n))
	if err := os.MkdirAll(raw, 0o755); err != nil {
		return Coverage{}, err
	}
	if len(inputs) > 0 {
		if _, err := p.tc.runBatch(ctx, p.t, p.t.CovBin, p.work, inputs, false,
			"LLVM_PROFILE_FILE="+filepath.Join(raw, "cov-%4m.profraw")); err != nil {
			return Coverage{}, err
		}
	}
	files, _ := filepath.Glob(filepath.Join(raw, "*.profraw"))
	if len(files) > 0 || p.profile == "" {
		merged := filepath.Join(p.work, fmt.Sprintf("cum-%d.profdata", p.n))
		args := []string{"merge", "-sparse", "-o", merged}
		if p.profile != "" {
			args = append(args, p.profile)
		}
		args = append(args, files...)
		if len(files) == 0 && p.profile == "" {
			return Coverage{}, fmt.Errorf("coverage: no profile from %d inputs", len(inputs))
		}
		if out, err := exec.CommandContext(ctx, "llvm-profdata-14", args...).CombinedOutput(); err != nil {
			return Coverage{}, fmt.Errorf("llvm-profdata merge: %v: %s", err, out)
		}
		if p.profile != "" {
			os.Remove(p.profile)
		}
		p.profile = merged
	}
	os.RemoveAll(raw)
	p.n++
	return p.tc.summary(ctx, p.t, p.profile)
}

// summary returns the coverage totals of profile over the target's sources.
func (tc *Toolchain) summary(ctx context.Context, t *Target, profile string) (Coverage, error) {
	args := []string{"export", "-summary-only", "-instr-profile=" + profile, t.CovBin}
	if t.Ignore != "" {
		args = append(args, "-ignore-filename-regex="+t.Ignore)
	}
	args = append(args, t.Sources...)
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "llvm-cov-14", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return Coverage{}, fmt.Errorf("llvm-cov export: %v: %s", err, stderr.Bytes())
	}
	var doc struct {
		Data []struct {
			Totals struct {
				Branches  struct{ Percent float64 } `json:"branches"`
				Lines     struct{ Percent float64 } `json:"lines"`
				Functions struct{ Percent float64 } `json:"functions"`
			} `json:"totals"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &doc); err != nil || len(doc.Data) == 0 {
		return Coverage{}, fmt.Errorf("llvm-cov export: unexpected output (%v)", err)
	}
	tot := doc.Data[0].Totals
	return Coverage{tot.Branches.Percent, tot.Lines.Percent, tot.Functions.Percent}, nil
}
