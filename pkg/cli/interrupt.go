package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
)

// interruptible returns a context that the first SIGINT (Ctrl-C) cancels,
// for a command that keeps what it has written: the sampler stops at its
// next model call (experiment.Task.Draw), and the batch in flight, stored
// whole or not at all, is left for a rerun to draw again, identically. It says so on w at once; a second SIGINT then ends the process
// as Go's default does. Write to w only through the returned writer,
// which the signal's message shares. stop releases the signal and reports
// whether one came; calls after the first report the same.
func interruptible(name string, w io.Writer) (ctx context.Context, out io.Writer, stop func() (interrupted bool)) {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	sw := &syncWriter{w: w}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-ctx.Done():
			cancel() // restore the default: a second Ctrl-C ends the process
			fmt.Fprintf(sw, "%s: interrupt: stopping now, keeping every record written; the batch in flight is not stored (a rerun draws it again, identically)\n", name)
		case <-done:
		}
	}()
	var once sync.Once
	var interrupted bool
	return ctx, sw, func() bool {
		once.Do(func() {
			interrupted = ctx.Err() != nil
			close(done)
			wg.Wait()
			cancel()
		})
		return interrupted
	}
}

// syncWriter serialises writes to w.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
