package tiny

import (
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/gasplab/gasp/pkg/hf"
)

const committedDir = "../../data/models/tiny"

// TestCommittedModel checks that pkg/llama loads the committed model and that its held-out perplexity is the
// one recorded when it was trained (in the checkpoint's metadata and the README).
func TestCommittedModel(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates the committed model")
	}
	if _, err := os.Stat(committedDir + "/model.safetensors"); err != nil {
		t.Skip("no committed model")
	}
	ck, err := hf.OpenCheckpoint(committedDir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := strconv.ParseFloat(ck.Metadata()["held_out_perplexity"], 64)
	ck.Close()
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Sources = DefaultSources("../..")
	got, n, err := HeldOutPerplexity(committedDir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("held-out perplexity %.4f over %d tokens (recorded %.4f)", got, n, want)
	if math.Abs(got/want-1) > 0.01 {
		t.Errorf("held-out perplexity %.4f, recorded %.4f", got, want)
	}
}
