package llama

import (
	"testing"

	"github.com/gasplab/gasp/pkg/hf"
	backends "github.com/gomlx/compute"
	"github.com/gomlx/compute/gobackend"
)

// hfLayoutBackend is the pure-Go backend under another name, so that a model on it keeps its Linear weights
// as Hugging Face stores them, [out, in], as it does on XLA (Model.transposed is true for "go" only): the
// graphs' other layout, which no GPU-less machine would otherwise run.
const hfLayoutBackend = "go-hf-layout"

func init() {
	backends.Register(hfLayoutBackend, func(config string) (backends.Backend, error) {
		return gobackend.New(config)
	})
}

// TestHFLayoutEngine runs the model tests (numpy references, cached decoding, sessions, loading) with the
// weights in XLA's layout.
func TestHFLayoutEngine(t *testing.T) { runEngineTests(t, hfLayoutBackend+":ops_sequential") }

// TestLayoutsAgree compares the two layouts' logits on a model with tied embeddings, in f32 and bf16.
func TestLayoutsAgree(t *testing.T) {
	cfg := smallConfig()
	cfg.TieWordEmbeddings = true
	ids := randomIDs(20, cfg.VocabSize, 3)
	for _, dt := range []hf.DType{hf.F32, hf.BF16} {
		var got [2][][]float32
		for i, backend := range []string{"go", hfLayoutBackend + ":ops_sequential"} {
			m := newRandomModel(t, cfg, Options{Backend: backend, DType: dt, MaxSeq: 64})
			if m.transposed != (i == 0) {
				t.Fatalf("%s: transposed = %v", backend, m.transposed)
			}
			var err error
			if got[i], err = m.Forward(ids); err != nil {
				t.Fatal(err)
			}
		}
		for p := range got[0] {
			for j, v := range got[0][p] {
				if d := v - got[1][p][j]; d > 1e-4 || d < -1e-4 {
					t.Fatalf("%s: position %d, logit %d: %g (transposed) vs %g (Hugging Face layout)", dt, p, j, v, got[1][p][j])
				}
			}
		}
	}
}
