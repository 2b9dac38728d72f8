package exact

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/sample"
)

// Toy is a small problem with a finite language and an exact model, for
// tests and for trying samplers: everything a sampler needs, plus the
// vocabulary and grammar source for printing.
type Toy struct {
	Name    string
	Grammar string // GBNF source
	Vocab   *gcd.Vocab
	Model   lm.Model
	Prompt  []int
	Config  sample.Config
}

// Toys returns fresh copies of the toy problems. A Toy is not safe for
// concurrent use (its Masker is not), but separate copies are independent:
//
//   - "skew": root ::= "0" | "1"+, the paper's kind of example. The bigram
//     model likes "1" as a first token but rarely ends a run of 1s, while
//     after "0" it ends at once: GCD puts about 6 % on "0", P^G about 60 %.
//   - "utf8": (a|é)+ b?, with é as one token, as its two bytes in two
//     tokens, and inside longer tokens; a model whose logits are a hash of
//     the whole prefix (not Markov).
//   - "forced": "<" (0 | 1[01][01][01]) ">", a binary_len-style grammar: the
//     first token is always "<" (so Priority has p(0) = 0), the model
//     prefers "1" after "<" and then ">" at once, which the grammar forbids.
//   - "twoeos": "x" "y"? | "z" with two end-of-sequence tokens, "</s>" and
//     "<eot>", as Llama-3.1-Instruct has three: every sentence can end with
//     either, so "x"·"</s>" (likely) and "x"·"<eot>" (rare) are two samples
//     with the same text.
func Toys() ([]*Toy, error) {
	var out []*Toy
	for _, f := range []func() (*Toy, error){skewToy, utf8Toy, forcedToy, twoEOSToy} {
		t, err := f()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Problem is a toy with its language enumerated: what tests compare a
// sampler's output with.
type Problem struct {
	Toy  *Toy
	Lang *Lang
}

// Problems returns fresh copies of the toys (see Toys), each with its
// language.
func Problems() ([]Problem, error) {
	toys, err := Toys()
	if err != nil {
		return nil, err
	}
	out := make([]Problem, len(toys))
	for i, toy := range toys {
		l, err := Enumerate(toy.Model, toy.Prompt, toy.Config, 100000)
		if err != nil {
			return nil, fmt.Errorf("exact: toy %s: %w", toy.Name, err)
		}
		out[i] = Problem{toy, l}
	}
	return out, nil
}

// newToy builds a Toy over tokens (ordinary ones, then "<s>" and "</s>",
// the prompt being <s>).
func newToy(name, src string, tokens []string, maxNew int, logits func(v *gcd.Vocab) func([]int) []float32) (*Toy, error) {
	return newToyEOS(name, src, tokens, []string{"</s>"}, maxNew, logits)
}

// newToyEOS is newToy with the end-of-sequence tokens ends (after "<s>").
func newToyEOS(name, src string, tokens, ends []string, maxNew int, logits func(v *gcd.Vocab) func([]int) []float32) (*Toy, error) {
	v := &gcd.Vocab{}
	for _, t := range tokens {
		v.Add([]byte(t), false, t)
	}
	bos := len(tokens)
	for i, t := range append([]string{"<s>"}, ends...) {
		v.Add([]byte(t), true, t)
		if i > 0 {
			v.EOS = append(v.EOS, bos+i)
		}
	}
	g, _, err := grammar.Compile(name+".gbnf", []byte(src), grammar.Options{})
	if err != nil {
		return nil, fmt.Errorf("exact: toy %s: %w", name, err)
	}
	masker := gcd.NewMasker(earley.New(g), v, gcd.NewTrie(v))
	return &Toy{
		Name: name, Grammar: src, Vocab: v,
		Model:  &lm.Table{Vocab: v.Size(), Logits: logits(v)},
		Prompt: []int{bos},
		Config: sample.Config{Masker: masker, MaxNew: maxNew},
	}, nil
}

// bigram builds bigram logits from rows of probabilities keyed by the
// previous token's name ("<s>" for the first token); missing rows are
// uniform.
func bigram(rows map[string][]float64) func(v *gcd.Vocab) func([]int) []float32 {
	return func(v *gcd.Vocab) func([]int) []float32 {
		n := v.Size()
		uniform := make([]float32, n)
		next := make([][]float32, n)
		for id := range next {
			next[id] = uniform
			if p, ok := rows[v.Name(id)]; ok {
				l := make([]float32, n)
				for i := range l {
					l[i] = float32(math.Log(p[i]))
				}
				next[id] = l
			}
		}
		return lm.NewBigram(uniform, next).Logits
	}
}

func skewToy() (*Toy, error) {
	tokens := []string{"0", "1", "11", "00", "2"}
	//                              0     1     11    00    2     <s>   </s>
	rows := map[string][]float64{
		"<s>": {0.05, 0.60, 0.20, 0.05, 0.09, 1e-9, 0.01},
		"0":   {0.02, 0.03, 0.01, 0.02, 0.02, 1e-9, 0.90},
		"1":   {0.50, 0.06, 0.03, 0.10, 0.24, 1e-9, 0.07},
		"11":  {0.50, 0.06, 0.03, 0.10, 0.24, 1e-9, 0.07},
	}
	return newToy("skew", "root ::= \"0\" | \"1\"+\n", tokens, 6, bigram(rows))
}

func utf8Toy() (*Toy, error) {
	tokens := []string{"a", "é", "\xc3", "\xa9", "b", "aé", "éb", "x"}
	hash := func(v *gcd.Vocab) func([]int) []float32 {
		memo := map[string][]float32{} // the toy is not safe for concurrent use anyway
		return func(prefix []int) []float32 {
			key := lm.Key(prefix)
			if l, ok := memo[key]; ok {
				return l
			}
			h := fnv.New64a()
			h.Write([]byte(key))
			r := rand.New(rand.NewPCG(h.Sum64(), 1))
			l := make([]float32, v.Size())
			for i := range l {
				l[i] = float32(1.5 * r.NormFloat64())
			}
			memo[key] = l
			return l
		}
	}
	return newToy("utf8", "root ::= (\"a\" | \"é\")+ \"b\"?\n", tokens, 4, hash)
}

func forcedToy() (*Toy, error) {
	tokens := []string{"<", "0", "1", "01", "11", ">", "0>", "2"}
	//                               <     0     1     01    11    >     0>    2     <s>   </s>
	bits := []float64{0.01, 0.10, 0.15, 0.05, 0.05, 0.55, 0.04, 0.04, 1e-9, 0.01}
	end := []float64{0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.02, 1e-9, 0.91}
	rows := map[string][]float64{
		"<s>": {0.50, 0.05, 0.15, 0.05, 0.05, 0.05, 0.05, 0.10, 1e-9, 1e-9},
		"<":   {0.01, 0.04, 0.60, 0.03, 0.20, 0.05, 0.02, 0.05, 1e-9, 1e-9},
		"0":   bits, "1": bits, "01": bits, "11": bits,
		">": end, "0>": end,
	}
	return newToy("forced", "root ::= \"<\" (\"0\" | \"1\" [01] [01] [01]) \">\"\n", tokens, 7, bigram(rows))
}

func twoEOSToy() (*Toy, error) {
	tokens := []string{"x", "y", "xy", "z"}
	//                            x     y     xy    z     <s>   </s>  <eot>
	rows := map[string][]float64{
		"<s>": {0.40, 0.05, 0.20, 0.30, 1e-9, 0.03, 0.02},
		"x":   {0.10, 0.30, 0.10, 0.10, 1e-9, 0.39, 0.01},
		"y":   {0.02, 0.02, 0.03, 0.03, 1e-9, 0.30, 0.60},
		"xy":  {0.02, 0.02, 0.03, 0.03, 1e-9, 0.30, 0.60},
		"z":   {0.05, 0.04, 0.005, 0.004, 1e-9, 0.001, 0.90},
	}
	return newToyEOS("twoeos", "root ::= \"x\" \"y\"? | \"z\"\n", tokens, []string{"</s>", "<eot>"}, 4, bigram(rows))
}
