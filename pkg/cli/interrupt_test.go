package cli

import (
	"bytes"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/gasplab/gasp/pkg/runs/runstest"
)

// interruptAfter is a command's standard error that sends the process a
// SIGINT, once, when a line containing mark has been written: Ctrl-C in
// the middle of a run.
type interruptAfter struct {
	mark string
	mu   sync.Mutex
	buf  bytes.Buffer
	sent bool
}

func (w *interruptAfter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.sent && strings.Contains(w.buf.String(), w.mark) {
		w.sent = true
		syscall.Kill(os.Getpid(), syscall.SIGINT)
	}
	return len(p), nil
}

func (w *interruptAfter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// holdSIGINT keeps a SIGINT that arrives after a command released it from
// ending the test binary.
func holdSIGINT(t *testing.T) {
	c := make(chan os.Signal, 4)
	signal.Notify(c, os.Interrupt)
	t.Cleanup(func() { signal.Stop(c) })
}

// Ctrl-C on "gasp experiment run" stops within a model step, says
// what was kept and how to resume (exit 130), and the rerun it names ends
// with the store of an uninterrupted run.
func TestExperimentRunInterrupt(t *testing.T) {
	cfg, full, _ := runTiny(t)
	want := runstest.Lines(t, full)
	holdSIGINT(t)
	part := filepath.Join(t.TempDir(), "part")
	w := &interruptAfter{mark: "[1/3]"}
	code := run([]string{"experiment", "run", cfg, "--store", part}, &bytes.Buffer{}, w)
	got := runstest.Lines(t, part)
	msg := w.String()
	if code != 130 || !strings.Contains(msg, "interrupt: stopping now, keeping every record written") ||
		!strings.Contains(msg, "interrupted: "+strconv.Itoa(len(got))+" records appended") || !strings.Contains(msg, "Run the same command again to resume") {
		t.Fatalf("interrupted run: exit %d, %d records stored; stderr:\n%s", code, len(got), msg)
	}
	if len(got) == 0 || len(got) >= len(want) {
		t.Fatalf("interrupted run stored %d of %d records", len(got), len(want))
	}
	if code, _, errOut := gasp("experiment", "run", cfg, "--store", part); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	if got := runstest.Lines(t, part); !slices.Equal(got, want) {
		t.Errorf("resumed store:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Ctrl-C on "gasp sample --out" stops between batches, says how many
// records the file got and to resume; --resume completes it as an
// uninterrupted run would have written it.
func TestSampleInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the embedded model")
	}
	dir := t.TempDir()
	full := filepath.Join(dir, "full.jsonl")
	gaspOK(t, resumeArgs(full, "--quiet"))
	want := withoutElapsed(t, full)
	holdSIGINT(t)
	out := filepath.Join(dir, "cut.jsonl")
	// Runs 0 and 1 first, so that the interrupted run says "resuming"
	// (before it loads the model): Ctrl-C then.
	gaspOK(t, resumeArgs(out, "--quiet", "--n", "2"))
	w := &interruptAfter{mark: "resuming: 2 of 6 runs"}
	args := resumeArgs(out, "--quiet", "--resume")
	code := run(args, &bytes.Buffer{}, w)
	msg := w.String()
	if code != 130 || !strings.Contains(msg, "interrupted: ") || !strings.Contains(msg, "--resume continues it") {
		t.Fatalf("interrupted sample: exit %d; stderr:\n%s", code, msg)
	}
	gaspOK(t, args)
	if got := withoutElapsed(t, out); !slices.Equal(got, want) {
		t.Errorf("resumed file:\n%s\nuninterrupted:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
