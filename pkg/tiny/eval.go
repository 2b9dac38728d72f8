package tiny

import (
	"math"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/llama"
	"github.com/gasplab/gasp/pkg/tokenizer"
)

// HeldOutPerplexity loads the model in dir with pkg/llama and computes the perplexity of the held-out
// completions of the corpus that opts describes (the same windows as Train evaluates), and their number of
// tokens.
func HeldOutPerplexity(dir string, opts Options) (float64, int, error) {
	opts.fill()
	tok, err := tokenizer.Load(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return 0, 0, err
	}
	if err := checkSources(opts.Sources); err != nil {
		return 0, 0, err
	}
	tasks, err := LoadTasks(opts.Sources)
	if err != nil {
		return 0, 0, err
	}
	corpus := BuildCorpus(tasks, opts.Seed, opts.HeldOut)
	m, err := llama.Load(dir, llama.Options{MaxSeq: opts.SeqLen})
	if err != nil {
		return 0, 0, err
	}
	defer m.Close()
	total, n := 0.0, 0
	for _, d := range corpus.HeldOut {
		e := docExample(tok, d, opts.SeqLen, true)
		T := len(e.mask) // padded windows: one compiled graph; the padding comes after every counted target
		ids := make([]int, T)
		for i := range ids {
			ids[i] = int(e.ids[i])
		}
		logits, err := m.Forward(ids)
		if err != nil {
			return 0, 0, err
		}
		for i := range T {
			if e.mask[i] == 0 {
				continue
			}
			total -= logSoftmaxAt(logits[i], int(e.ids[i+1]))
			n++
		}
	}
	return math.Exp(total / float64(n)), n, nil
}

func logSoftmaxAt(logits []float32, k int) float64 {
	mx, s := softmaxNorm(logits)
	return float64(logits[k]) - mx - math.Log(s)
}
