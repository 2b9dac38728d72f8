package experiment

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/sample"
)

// cancelling is Priority that calls cancel at its n-th use: a chain's
// step in the middle of a batch.
func cancelling(n int, cancel func()) mcmc.Proposal {
	calls := 0
	return mcmc.ProposalFunc(func(x *sample.Record, w []float64) {
		if calls++; calls == n {
			cancel()
		}
		mcmc.Priority{}.Weights(x, w)
	})
}

// Cancelling the grid's context in the middle of a batch stops it within
// a second; the batches already stored stay, the interrupted one is not
// stored in part, and a rerun completes the store as an uninterrupted run
// would have.
func TestRunCancelMidBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the embedded model")
	}
	c := toyConfig(t)
	c.Methods = []string{"gcd", "mcmc-user"}
	never := func() {}
	full := filepath.Join(t.TempDir(), "full")
	if _, err := Run(context.Background(), c, Options{Store: full,
		Methods: map[string]method.Method{"mcmc-user": method.MCMC{Proposal: cancelling(-1, never)}}}); err != nil {
		t.Fatal(err)
	}
	want := storeLines(t, full)

	part := filepath.Join(t.TempDir(), "part")
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled time.Time
	stop := func() { cancelled = time.Now(); cancel() }
	_, err := Run(ctx, c, Options{Store: part,
		Methods: map[string]method.Method{"mcmc-user": method.MCMC{Proposal: cancelling(3, stop)}}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v, want context.Canceled", err)
	}
	if cancelled.IsZero() {
		t.Fatal("the proposal never cancelled")
	}
	if d := time.Since(cancelled); d > time.Second {
		t.Errorf("the run returned %v after the cancellation", d)
	}
	got := storeLines(t, part)
	for _, l := range got {
		if !strings.Contains(l, `"method":"gcd"`) {
			t.Errorf("a record of the interrupted batch was stored: %s", l)
		}
	}
	if len(got) != 3 {
		t.Errorf("%d records kept, want gcd's 3", len(got))
	}

	if _, err := Run(context.Background(), c, Options{Store: part,
		Methods: map[string]method.Method{"mcmc-user": method.MCMC{Proposal: cancelling(-1, never)}}}); err != nil {
		t.Fatal(err)
	}
	if got := storeLines(t, part); !slices.Equal(got, want) {
		t.Errorf("resumed store differs:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
