package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/grammarfile"
)

// benchAbout introduces the subcommands of "gasp bench" (benchCommands).
const benchAbout = "Benchmarks. Workloads are in data/bench/masks."

var benchCommands = []subcommand{
	{"masks", "token-mask speed: step through a sentence's tokens under a grammar", runBenchMasks},
	{"schemas", "MaskBench-style: compile JSON schemas, step masks through a valid instance of each", runBenchSchemas},
	{"tokenize", "tokenizer speed: encode megabytes of mixed text (MB/s)", runBenchTokenize},
	{"lm", "LM speed: batched KV-cached decode tokens/s per batch size, prefill tokens/s", runBenchLM},
	{"sample", "MCMC speed on a model: samples/s, time outside the model, evaluations per step", runBenchSample},
}

// maskReport is what "gasp bench masks --json" prints.
type maskReport struct {
	Grammar   string  `json:"grammar"`
	Tokenizer string  `json:"tokenizer"`
	VocabSize int     `json:"vocab_size"`
	Passes    int     `json:"passes"`
	VocabMS   float64 `json:"vocab_ms"`   // loading the tokenizer and building its trie (once per vocabulary)
	CompileMS float64 `json:"compile_ms"` // grammar text to a ready Masker, median over passes
	Steps     int     `json:"steps"`
	P50US     float64 `json:"p50_us"`
	P90US     float64 `json:"p90_us"`
	P99US     float64 `json:"p99_us"`
	MaxUS     float64 `json:"max_us"`
	MeanUS    float64 `json:"mean_us"`
	// The same percentiles of the CPU time of the mask computation's
	// thread (Linux only; 0 elsewhere): what a step costs when the machine
	// is shared, as wall time then includes other processes' turns.
	CPUP50US float64   `json:"cpu_p50_us"`
	CPUP99US float64   `json:"cpu_p99_us"`
	CPUMaxUS float64   `json:"cpu_max_us"`
	StepUS   []float64 `json:"step_us"` // wall time of each step, the maximum over passes
	Allowed  []int     `json:"allowed"`
	Verified int       `json:"verified_steps"` // steps checked against a brute-force mask
	States   int       `json:"earley_states"`  // Earley states built in the last pass
}

// maskBench is a parsed "gasp bench masks" command line.
type maskBench struct {
	tokPath, gramPath, idsPath string
	passes, verify, eos        int
	asJSON, lenient            bool
}

func runBenchMasks(args []string, stdout, stderr io.Writer) int {
	o, done, code := parseBenchMasks(args, stdout, stderr)
	if done {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "gasp bench masks: %v\n", err)
		return 1
	}
	w, err := o.load()
	if err != nil {
		return fail(err)
	}
	runtime.LockOSThread() // for threadCPU
	defer runtime.UnlockOSThread()
	rep := w.rep
	var compiles, steps, cpus []float64
	rep.StepUS = make([]float64, len(w.ids)+1)
	for pass := 0; pass < o.passes; pass++ {
		if pass > 0 {
			// Every pass cold: a trie keeps the walks of region shapes
			// that any grammar over it made (pkg/gcd).
			w.trie = gcd.NewTrie(w.vocab)
		}
		runtime.GC() // the last pass's garbage is not the compile's cost
		t0 := time.Now()
		g, _, err := grammarfile.CompileSource(o.gramPath, w.src, grammar.Options{Lenient: o.lenient})
		if err != nil {
			return fail(err)
		}
		m := earley.New(g)
		masker := gcd.NewMasker(m, w.vocab, w.trie)
		compiles = append(compiles, ms(time.Since(t0)))
		runtime.GC() // nor the compile's garbage a step's
		r := maskRun{o: o, w: w, g: g, rep: &rep, first: pass == 0}
		if err := r.pass(masker.NewState()); err != nil {
			return fail(err)
		}
		steps, cpus = append(steps, r.steps...), append(cpus, r.cpus...)
		rep.States = m.NumStates()
	}
	rep.summarize(compiles, steps, cpus)
	if o.asJSON {
		if err := json.NewEncoder(stdout).Encode(rep); err != nil {
			return fail(err)
		}
		return 0
	}
	rep.print(stdout, len(cpus) > 0)
	return 0
}

// parseBenchMasks parses and checks the command line.
func parseBenchMasks(args []string, stdout, stderr io.Writer) (o maskBench, done bool, code int) {
	fset := newFlagSet("gasp bench masks", "gasp bench masks --tokenizer PATH --grammar G.gbnf --ids IDS [--passes N] [--json] [--verify K]", `
Steps through a sentence's token ids (one per line, no BOS) under a grammar.
At each step it computes the mask of allowed tokens over the whole vocabulary,
checks that the next id is allowed and advances; the last step must allow
EOS. Each pass starts from a freshly compiled grammar, so caches are cold at
the start of every pass. The heap is collected before compiling and again
before the first step, so that neither the compile nor a step pays for the
last pass's garbage, and no step for the compile's (as in a sampler, which
compiles once and then steps). Reports the compile time (grammar text to a
ready masker; median over passes), per-step p50/p90/p99/max in µs over all
passes, the same percentiles of the mask thread's CPU time (Linux), and the
number of allowed tokens at each step. Exits 1 if a token or the final EOS
is rejected, or if a verified mask differs from brute force.`)
	fset.StringVar(&o.tokPath, "tokenizer", ".cache/llama3/tokenizer.json", "Hugging Face tokenizer.json")
	fset.StringVar(&o.gramPath, "grammar", "", "grammar file: GBNF, or a JSON Schema (.json), a regular expression (.regex) or a Lark grammar (.lark)")
	fset.StringVar(&o.idsPath, "ids", "", "token ids of the sentence, one per line")
	fset.IntVar(&o.passes, "passes", 5, "number of passes")
	fset.BoolVar(&o.asJSON, "json", false, "print one JSON object")
	fset.IntVar(&o.verify, "verify", 0, "in the first pass, check every K-th step's mask against brute force, after the pass's timed steps (0: off)")
	fset.BoolVar(&o.lenient, "lenient", false, "lenient grammar compilation")
	fset.IntVar(&o.eos, "eos", -1, "EOS token id (default: the tokenizer's end-of-text tokens)")
	pos, done, code := parseFlags(fset, args, stdout, stderr)
	if done {
		return o, true, code
	}
	usageErr := func(format string, a ...any) (maskBench, bool, int) {
		fmt.Fprintf(stderr, "gasp bench masks: "+format+"\n", a...)
		helpHint(stderr, fset.Name())
		return o, true, 2
	}
	switch {
	case len(pos) > 0:
		return usageErr("unexpected arguments %q", pos)
	case o.gramPath == "" || o.idsPath == "":
		return usageErr("--grammar and --ids are required")
	case o.passes < 1 || o.passes > 1_000_000:
		return usageErr("--passes must be in [1, 1000000], got %d", o.passes)
	case o.verify < 0:
		return usageErr("--verify must not be negative (0: off), got %d", o.verify)
	case o.eos < -1:
		return usageErr("--eos must be a token id (-1: the tokenizer's), got %d", o.eos)
	}
	return o, false, 0
}

// maskWorkload is what every pass of "gasp bench masks" shares.
type maskWorkload struct {
	src   []byte
	ids   []int
	vocab *gcd.Vocab
	trie  *gcd.Trie
	rep   maskReport // with the fields known before the first pass
}

// load reads the grammar, the token ids and the vocabulary, and builds the trie.
func (o maskBench) load() (*maskWorkload, error) {
	src, err := readInput("--grammar", o.gramPath, maxGrammarBytes)
	if err != nil {
		return nil, err
	}
	ids, err := readIDs(o.idsPath)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := checkInput("--tokenizer", o.tokPath, maxTokenizerBytes); err != nil {
		return nil, err
	}
	vocab, err := gcd.LoadVocab(o.tokPath)
	if err != nil {
		return nil, err
	}
	if o.eos >= vocab.Size() {
		return nil, fmt.Errorf("--eos %d is not a token id of %s (vocabulary 0…%d)", o.eos, o.tokPath, vocab.Size()-1)
	}
	if o.eos >= 0 {
		vocab.EOS = []int{o.eos}
	}
	w := &maskWorkload{src: src, ids: ids, vocab: vocab, trie: gcd.NewTrie(vocab)}
	w.rep = maskReport{Grammar: o.gramPath, Tokenizer: o.tokPath, VocabSize: vocab.Size(), Passes: o.passes,
		VocabMS: ms(time.Since(t0))}
	for _, id := range ids {
		if id < 0 || id >= vocab.Size() {
			return nil, fmt.Errorf("%s: token id %d out of range [0, %d)", o.idsPath, id, vocab.Size())
		}
	}
	return w, nil
}

// maskRun is one pass over a workload's token ids.
type maskRun struct {
	o     maskBench
	w     *maskWorkload
	g     *grammar.Grammar
	rep   *maskReport // gets each step's wall time; in the first pass, the allowed counts
	first bool
	steps []float64 // wall time of each step, µs
	cpus  []float64 // CPU time of each step's thread, µs, where known
	kept  []keptMask
}

// keptMask is a mask kept for checking after the pass: brute force is slow
// and leaves much garbage, which, checked in the pass, the next timed masks
// would collect.
type keptMask struct {
	step   int
	prefix []byte
	mask   gcd.Bitset
}

// pass steps st through the token ids, timing every mask; in the first
// pass, it then checks the masks --verify asks for.
func (r *maskRun) pass(st *gcd.State) error {
	err := r.stepAll(st)
	if verr := r.verifyKept(); verr != nil {
		return verr // a wrong mask is the cause of a refused token
	}
	return err
}

// stepAll steps st through the token ids, timing every mask.
func (r *maskRun) stepAll(st *gcd.State) error {
	ids, vocab := r.w.ids, r.w.vocab
	var allowed []int
	for i := 0; i <= len(ids); i++ {
		c0, cpuOK := threadCPU()
		t0 := time.Now()
		mask := st.Allowed()
		d := us(time.Since(t0))
		if c1, ok := threadCPU(); ok && cpuOK {
			r.cpus = append(r.cpus, us(c1-c0))
		}
		r.steps = append(r.steps, d)
		r.rep.StepUS[i] = max(r.rep.StepUS[i], d)
		if r.first {
			allowed = append(allowed, mask.Count())
			r.keep(i, st, mask)
		}
		if i == len(ids) {
			if !slices.ContainsFunc(vocab.EOS, mask.Has) {
				return fmt.Errorf("step %d: EOS not allowed at the end of the sentence", i)
			}
			break
		}
		if !mask.Has(ids[i]) {
			return fmt.Errorf("step %d: token %d %q not allowed after %q", i, ids[i], vocab.Token(ids[i]), st.Bytes())
		}
		if err := st.Advance(ids[i]); err != nil {
			return fmt.Errorf("step %d: %v", i, err)
		}
	}
	if r.first {
		r.rep.Allowed = allowed
	}
	return nil
}

// keep keeps the mask of step i for verifyKept when --verify asks for it.
func (r *maskRun) keep(i int, st *gcd.State, mask gcd.Bitset) {
	k := r.o.verify
	if k == 0 || i%k != 0 && i != len(r.w.ids) {
		return
	}
	r.kept = append(r.kept, keptMask{i, slices.Clone(st.Bytes()), slices.Clone(mask)})
}

// verifyKept checks the kept masks against brute force.
func (r *maskRun) verifyKept() error {
	for _, c := range r.kept {
		var err error
		phase("verify", func() { err = verifyMask(r.g, r.w.vocab, c.prefix, c.mask) })
		if err != nil {
			return fmt.Errorf("step %d: %v", c.step, err)
		}
		r.rep.Verified++
	}
	return nil
}

// summarize fills in the compile time and the step percentiles.
func (rep *maskReport) summarize(compiles, steps, cpus []float64) {
	rep.CompileMS = percentile(compiles, 50)
	rep.Steps = len(rep.StepUS)
	rep.P50US = percentile(steps, 50)
	rep.P90US = percentile(steps, 90)
	rep.P99US = percentile(steps, 99)
	rep.MaxUS = percentile(steps, 100)
	for _, s := range steps {
		rep.MeanUS += s / float64(len(steps))
	}
	rep.CPUP50US, rep.CPUP99US, rep.CPUMaxUS = percentile(cpus, 50), percentile(cpus, 99), percentile(cpus, 100)
}

// print writes the report as text.
func (rep *maskReport) print(stdout io.Writer, haveCPU bool) {
	fmt.Fprintf(stdout, "grammar %s, vocabulary %d tokens (%s, loaded in %.0f ms)\n", rep.Grammar, rep.VocabSize, rep.Tokenizer, rep.VocabMS)
	fmt.Fprintf(stdout, "compile   %.2f ms (median of %d)\n", rep.CompileMS, rep.Passes)
	fmt.Fprintf(stdout, "steps     %d per pass, %d passes\n", rep.Steps, rep.Passes)
	fmt.Fprintf(stdout, "per step  p50 %.1f µs  p90 %.1f µs  p99 %.1f µs  max %.1f µs  mean %.1f µs\n",
		rep.P50US, rep.P90US, rep.P99US, rep.MaxUS, rep.MeanUS)
	if haveCPU {
		fmt.Fprintf(stdout, "cpu/step  p50 %.1f µs  p99 %.1f µs  max %.1f µs (the mask's thread)\n", rep.CPUP50US, rep.CPUP99US, rep.CPUMaxUS)
	}
	if rep.Verified > 0 {
		fmt.Fprintf(stdout, "verified  %d steps against brute force\n", rep.Verified)
	}
	var b strings.Builder
	for i, n := range rep.Allowed {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(n))
	}
	fmt.Fprintf(stdout, "allowed   %s\n", b.String())
}

// verifyMask recomputes the allowed set after prefix by brute force
// (gcd.BruteMask, on a freshly built Machine sharing no caches with the
// masker), and compares.
func verifyMask(g *grammar.Grammar, v *gcd.Vocab, prefix []byte, mask gcd.Bitset) error {
	want, err := gcd.BruteMask(earley.New(g), v, prefix)
	if err != nil {
		return err
	}
	for id := range v.Size() {
		if want.Has(id) != mask.Has(id) {
			return fmt.Errorf("token %d %q: mask says %v, brute force %v", id, v.Token(id), mask.Has(id), want.Has(id))
		}
	}
	return nil
}

func readIDs(path string) ([]int, error) {
	data, err := readInput("--ids", path, maxIDsBytes)
	if err != nil {
		return nil, err
	}
	var ids []int
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		id, err := strconv.Atoi(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: not a token id: %q", path, i+1, line)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(p/100*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
