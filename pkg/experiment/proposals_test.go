package experiment

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gasplab/gasp/pkg/model"
	"github.com/gasplab/gasp/pkg/runs"
	"github.com/gasplab/gasp/pkg/runs/runstest"
)

// Records carry the EOS that ended them (the embedded model has two), and
// keep_proposals stores each step's proposal without changing the samples.
func TestKeepProposalsAndEOS(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the embedded model")
	}
	ctx := context.Background()
	c := toyConfig(t)
	c.Methods, c.K = []string{"mcmc-uniform"}, 3
	m, err := model.Open(ctx, c.ModelRef())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Vocab.EOS) < 2 {
		t.Fatalf("the embedded model has EOS %v; the test wants several", m.Vocab.EOS)
	}
	plain := filepath.Join(t.TempDir(), "plain")
	if _, err := Run(ctx, c, Options{Store: plain}); err != nil {
		t.Fatal(err)
	}
	c.KeepProposals = true
	kept := filepath.Join(t.TempDir(), "kept")
	if _, err := Run(ctx, c, Options{Store: kept}); err != nil {
		t.Fatal(err)
	}
	a, b := runstest.Records(t, plain), runstest.Records(t, kept)
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%d and %d records", len(a), len(b))
	}
	state := map[[2]int]runs.Record{}
	for _, r := range b {
		state[[2]int{r.Run, r.K}] = r
	}
	for i, r := range b {
		p := a[i]
		if p.Proposal != nil || !slices.Equal(p.IDs, r.IDs) || p.EOS != r.EOS || p.LogP != r.LogP {
			t.Errorf("run %d k=%d: keeping proposals changed the record", r.Run, r.K)
		}
		if (r.Status == runs.StatusComplete) != slices.Contains(m.Vocab.EOS, r.EOS) || (r.Status != runs.StatusComplete && r.EOS != runs.NoEOS) {
			t.Errorf("run %d k=%d: status %s, eos %d (model EOS %v)", r.Run, r.K, r.Status, r.EOS, m.Vocab.EOS)
		}
		if (r.K == 0) != (r.Proposal == nil) {
			t.Fatalf("run %d k=%d: proposal %v", r.Run, r.K, r.Proposal)
		}
		if r.K == 0 {
			continue
		}
		y, prev := r.Proposal, state[[2]int{r.Run, r.K - 1}]
		if y.Accepted != r.Accepted[r.K-1] {
			t.Errorf("run %d k=%d: proposal accepted %v, record says %v", r.Run, r.K, y.Accepted, r.Accepted)
		}
		want := prev
		if y.Accepted {
			want = runs.Record{IDs: y.IDs, EOS: y.EOS, LogP: y.LogP}
		}
		if !slices.Equal(r.IDs, want.IDs) || r.EOS != want.EOS || r.LogP != want.LogP {
			t.Errorf("run %d k=%d: state %v·%d, want %v·%d", r.Run, r.K, r.IDs, r.EOS, want.IDs, want.EOS)
		}
	}
}
