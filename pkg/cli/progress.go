package cli

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
)

// bar is a progress bar on a terminal, or nothing.
type bar struct{ pb *progressbar.ProgressBar }

// newBar returns a progress bar of total units on w when w is a terminal
// and quiet is false, else a bar that shows nothing.
func newBar(w io.Writer, quiet bool, total int, desc string) *bar {
	if quiet || !isTerminal(w) {
		return &bar{}
	}
	return &bar{progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
	)}
}

// add advances the bar by n units, never past its end (retried starts
// and rejection attempts can end more completions than planned).
func (b *bar) add(n int) {
	if b.pb == nil {
		return
	}
	n = min(n, b.pb.GetMax()-int(b.pb.State().CurrentNum))
	if n > 0 {
		b.pb.Add(n)
	}
}

func (b *bar) describe(s string) {
	if b.pb != nil {
		b.pb.Describe(s)
	}
}

// finish ends the bar; it may be called again.
func (b *bar) finish() {
	if b.pb != nil {
		b.pb.Finish()
		b.pb = nil
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
