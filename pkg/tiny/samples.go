package tiny

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/llama"
	"github.com/gasplab/gasp/pkg/tokenizer"
)

// SampleStats summarizes unconstrained samples of a model on some tasks.
type SampleStats struct {
	Samples  int
	Valid    int     // samples in the task's grammar
	Viable   float64 // mean over samples of the fraction of bytes in the longest prefix that the grammar can extend
	Perfect  int     // samples equal to the reference solution
	Examples []string
}

// EvalSamples draws n samples at temperature 1 (up to maxTokens tokens, stopping at <|eot_id|> or
// <|end_of_text|>) from the model in dir for each task whose name has one of the prefixes, and checks them
// against the task's grammar with an Earley parser.
func EvalSamples(dir string, tasks []Task, prefixes []string, n, maxTokens int, seed uint64) (SampleStats, error) {
	var st SampleStats
	tok, err := tokenizer.Load(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return st, err
	}
	stop := map[int]bool{}
	for _, s := range []string{"<|eot_id|>", "<|end_of_text|>"} {
		if id, ok := tok.ID(s); ok {
			stop[id] = true
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x73616d70))
	for _, t := range tasks {
		if !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(t.Name, p) }) {
			continue
		}
		prompt := tok.ChatPrompt(t.Prompt, tokenizer.ChatOptions{})
		out, err := sampleFree(dir, prompt, n, maxTokens, stop, rng)
		if err != nil {
			return st, err
		}
		if err := st.add(tok, t, out); err != nil {
			return st, err
		}
	}
	if st.Samples > 0 {
		st.Viable /= float64(st.Samples)
	}
	return st, nil
}

// sampleFree draws n completions of prompt from the model in dir, rows in lockstep, each token from the
// model's softmax with rng (row after row), until a stop token (left out) or maxTokens tokens.
func sampleFree(dir string, prompt []int, n, maxTokens int, stop map[int]bool, rng *rand.Rand) ([][]int, error) {
	m, err := llama.Load(dir, llama.Options{MaxSeq: len(prompt) + maxTokens, PrefillChunk: 64})
	if err != nil {
		return nil, err
	}
	defer m.Close()
	s, err := m.NewSession(n)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	first, err := s.Prefill(prompt)
	if err != nil {
		return nil, err
	}
	logits := slices.Repeat([][]float32{first}, n)
	out := make([][]int, n)
	live := make([]int, n)
	for i := range live {
		live[i] = i
	}
	for step := 0; step < maxTokens && len(live) > 0; step++ {
		var toks, rows []int
		for _, r := range live {
			id := sampleSoftmax(logits[r], rng)
			if stop[id] {
				continue
			}
			out[r] = append(out[r], id)
			toks, rows = append(toks, id), append(rows, r)
		}
		live = rows
		if len(rows) == 0 || step == maxTokens-1 {
			break
		}
		next, err := s.Step(toks, rows)
		if err != nil {
			return nil, err
		}
		for j, r := range rows {
			logits[r] = next[j]
		}
	}
	return out, nil
}

// add counts the samples out of task t: parsed byte by byte with the task's grammar.
func (st *SampleStats) add(tok *tokenizer.Tokenizer, t Task, out [][]int) error {
	em := earley.New(t.Grammar)
	for _, ids := range out {
		text, err := tok.Decode(ids)
		if err != nil {
			return err
		}
		p := em.NewParser()
		good := 0
		for i := range len(text) {
			if !p.Feed(text[i]) {
				break
			}
			good++
		}
		st.Samples++
		if good == len(text) && p.Complete() {
			st.Valid++
		}
		if text == t.Solution {
			st.Perfect++
		}
		if len(text) > 0 {
			st.Viable += float64(good) / float64(len(text))
		}
		if len(st.Examples) < 12 {
			st.Examples = append(st.Examples, fmt.Sprintf("%s: %q", t.Name, text))
		}
	}
	return nil
}

// sampleSoftmax draws a token from the softmax of logits.
func sampleSoftmax(logits []float32, rng *rand.Rand) int {
	mx, sum := softmaxNorm(logits)
	u := rng.Float64() * sum
	for i, l := range logits {
		u -= math.Exp(float64(l) - mx)
		if u <= 0 {
			return i
		}
	}
	return len(logits) - 1
}

// softmaxNorm returns the largest logit mx and Σ exp(l − mx): softmax(l)_i = exp(l_i − mx) / sum.
func softmaxNorm(logits []float32) (mx, sum float64) {
	mx = math.Inf(-1)
	for _, l := range logits {
		mx = max(mx, float64(l))
	}
	for _, l := range logits {
		sum += math.Exp(float64(l) - mx)
	}
	return mx, sum
}
