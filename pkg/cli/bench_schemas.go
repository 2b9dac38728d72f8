package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/jsonschema"
	"github.com/gasplab/gasp/pkg/tokenizer"
)

// schemaCase is one file of a MaskBench-style data folder: a schema and
// its test instances (JSONSchemaBench's maskbench/data format).
type schemaCase struct {
	Schema json.RawMessage `json:"schema"`
	Tests  []struct {
		Valid bool            `json:"valid"`
		Data  json.RawMessage `json:"data"`
	} `json:"tests"`
}

// schemaResult is one line of "gasp bench schemas": what happened to one
// schema. Status is one of
//
//	ok          compiled; the instance's every token and the final EOS allowed; verified masks equal brute force
//	rejected    the front end refused the schema (Error names the keyword by its JSON pointer)
//	wrong       compiled, but a valid instance was refused, a mask differed from brute force, or a sampled sentence is invalid
//	no_instance compiled, but no valid instance to step through (none in the file and none sampled)
//	error       the file could not be read or parsed
//	timeout     compile, instance and steps took longer than --timeout
type schemaResult struct {
	Name      string  `json:"name"`
	Status    string  `json:"status"`
	Error     string  `json:"error,omitempty"`
	Keyword   string  `json:"keyword,omitempty"` // for rejected: the keyword the error names
	CompileMS float64 `json:"compile_ms,omitempty"`
	// CompileCPUMS is the compile's thread CPU time (Linux; absent elsewhere).
	CompileCPUMS float64 `json:"compile_cpu_ms,omitempty"`
	// Schema is the schema's compact text, for the other engine.
	Schema string `json:"schema"`
	// Instance is the text stepped through: the first valid test instance
	// the independent validator accepts (or, with none, a sentence sampled
	// under the compiled grammar), compact, members in schema order
	// (jsonschema.Write); for a rejected schema, the test instance's
	// compact text in its own member order (also where the grammar refused
	// it, status wrong, or took too long, status timeout). From says which ("test",
	// "sampled", ""). IDs are its Llama-3 token ids.
	Instance string    `json:"instance,omitempty"`
	From     string    `json:"from,omitempty"`
	IDs      []int     `json:"ids,omitempty"`
	StepUS   []float64 `json:"step_us,omitempty"` // wall time of each mask, µs (len(IDs)+1 steps, the last for EOS)
	// CPUUS is the CPU time of each mask's thread, µs (Linux; absent
	// elsewhere): on a shared machine, wall time includes other processes' turns.
	CPUUS    []float64 `json:"cpu_us,omitempty"`
	Allowed  []int     `json:"allowed,omitempty"`
	Verified int       `json:"verified_steps,omitempty"`
}

// schemaBench is a parsed "gasp bench schemas" command line.
type schemaBench struct {
	dir, tokPath         string
	sample, verify, from int
	seed                 uint64
	instanceSamples      int
	timeout              time.Duration
	cpuProfile           string
	freshTrie            bool
}

// timeoutError is a schema that took longer than --timeout: its line
// says "timeout", and the run stops (a goroutine cannot be stopped, and
// one left running would slow every later step), to go on from Next.
type timeoutError struct {
	Name string
	Next int
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("%s took longer than the time limit; rerun with --from %d to go on", e.Name, e.Next)
}

func runBenchSchemas(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("gasp bench schemas", "gasp bench schemas --dir DIR [--sample N --seed S] [--verify K] [--tokenizer PATH] [--fresh-trie] [--cpuprofile F]", `
A MaskBench-style run of gasp's JSON Schema front end (pkg/jsonschema). DIR
holds one JSON file per schema, {"schema": ..., "tests": [{"valid": true,
"data": ...}, ...]}, as JSONSchemaBench's maskbench/data does. For each
file (or a seeded sample of N of them, file names sorted then shuffled):
compile the schema once (timed: schema text to a ready masker); take the
first valid test instance that an independent validator
(santhosh-tekuri/jsonschema, formats asserted) also accepts, or else sample
a sentence under the grammar and check it with that validator; write it in
the grammar's canonical form (jsonschema.Write: compact, members in schema
order), encode it with the tokenizer, and step through its ids, timing each
mask, checking that every id and the final EOS are allowed, and then every
K-th mask (and the last) against brute force (after the timed steps, so
that no step collects the check's garbage). Schemas share the vocabulary's
trie, and with it the walks of region shapes their masks made (a string
body walked for one schema serves the next, as in a server); --fresh-trie
gives each its own. Prints one JSON line per schema
(see schemaResult in bench_schemas.go); scripts/maskbench/ feeds them to
XGrammar and summarizes both. One thread.`, stdout, stderr)
	var o schemaBench
	cl.StringVar(&o.dir, "dir", "", "folder of schema files (*.json)")
	cl.StringVar(&o.tokPath, "tokenizer", defaultTokenizer, "Hugging Face tokenizer.json")
	cl.IntVar(&o.sample, "sample", 0, "take a seeded sample of N files (0: all)")
	seed := cl.Int("seed", 1, "seed of the sample and of instance sampling")
	cl.IntVar(&o.verify, "verify", 16, "check every K-th mask (and the last) against brute force (0: off)")
	cl.IntVar(&o.instanceSamples, "tries", 20, "sentences to sample for a schema without a valid test instance")
	cl.IntVar(&o.from, "from", 0, "start at the K-th file of the (sampled) list, counting from 0")
	cl.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file, its samples labelled phase=compile, steps (masks and advances) or verify")
	cl.BoolVar(&o.freshTrie, "fresh-trie", false, "build the vocabulary's trie again for each schema (untimed), so that no schema's masks reuse the region shapes' walks an earlier one kept with the trie")
	cl.DurationVar(&o.timeout, "timeout", time.Minute, "time limit per schema (compile, instance, steps); past it the schema's line says timeout and the run exits 3")
	pos, done, code := cl.parse(args)
	if done {
		return code
	}
	switch {
	case len(pos) > 0:
		return cl.usageError("unexpected arguments %q", pos)
	case o.dir == "":
		return cl.usageError("--dir is required")
	case o.sample < 0 || o.verify < 0 || o.instanceSamples < 0 || o.from < 0:
		return cl.usageError("--sample, --verify, --tries and --from must not be negative")
	case o.timeout <= 0:
		return cl.usageError("--timeout must be positive")
	}
	o.seed = uint64(*seed)
	if err := o.run(stdout); err != nil {
		fmt.Fprintf(stderr, "gasp bench schemas: %v\n", err)
		if _, ok := err.(*timeoutError); ok {
			return 3
		}
		return 1
	}
	return 0
}

// files lists the schema files to run, sorted; a seeded sample of them
// when o.sample > 0.
func (o schemaBench) files() ([]string, error) {
	names, err := filepath.Glob(filepath.Join(o.dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no *.json files", o.dir)
	}
	slices.Sort(names)
	if o.sample > 0 && o.sample < len(names) {
		rng := rand.New(rand.NewPCG(o.seed, 0x5eed))
		rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
		names = names[:o.sample]
		slices.Sort(names)
	}
	return names, nil
}

func (o schemaBench) run(stdout io.Writer) error {
	names, err := o.files()
	if err != nil {
		return err
	}
	tok, err := tokenizer.Load(o.tokPath)
	if err != nil {
		return err
	}
	vocab, err := gcd.LoadVocab(o.tokPath)
	if err != nil {
		return err
	}
	trie := gcd.NewTrie(vocab)
	if o.cpuProfile != "" {
		stop, err := startCPUProfile(o.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	enc := json.NewEncoder(stdout)
	for i := o.from; i < len(names); i++ {
		if o.freshTrie && i > o.from {
			trie = gcd.NewTrie(vocab)
		}
		// Instance sampling is seeded per file, so that --from resumes the same run.
		rng := rand.New(rand.NewPCG(o.seed, uint64(i)))
		done := make(chan schemaResult, 1)
		go func() {
			runtime.LockOSThread() // for threadCPU
			defer runtime.UnlockOSThread()
			done <- o.one(names[i], tok, vocab, trie, rng)
		}()
		var r schemaResult
		select {
		case r = <-done:
		case <-time.After(o.timeout):
			p, _ := prepare(names[i], tok) // for the other engine: the schema and the test instance
			r = p.r
			r.Status, r.Error = "timeout", fmt.Sprintf("over %v", o.timeout)
			if err := enc.Encode(r); err != nil {
				return err
			}
			return &timeoutError{Name: r.Name, Next: i + 1}
		}
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// prepared is a schema file read, before compiling.
type prepared struct {
	r      schemaResult // Name, Schema; Instance, From and IDs of the first valid test instance
	schema []byte       // compact
	tests  []*jsonschema.Value
	check  func([]byte) error
}

// prepare reads a schema file: the schema's compact text, and its valid
// test instances, the first one (compact, its own member order) encoded
// for an engine that cannot use the grammar's form.
func prepare(path string, tok *tokenizer.Tokenizer) (*prepared, error) {
	p := &prepared{r: schemaResult{Name: filepath.Base(path)}}
	var c schemaCase
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &c)
	}
	if err == nil && len(c.Schema) == 0 {
		err = fmt.Errorf("no \"schema\" member")
	}
	if err != nil {
		return p, fmt.Errorf("%s: %v", path, err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, c.Schema); err != nil {
		return p, err
	}
	p.schema, p.r.Schema = compact.Bytes(), compact.String()
	p.check = newInstanceCheck(c.Schema)
	p.tests = validTests(c, p.check)
	if len(p.tests) > 0 {
		p.r.Instance, p.r.From = jsonschema.Canonical(p.tests[0]), "test"
		p.r.IDs = tok.Encode(p.r.Instance, false)
	}
	return p, nil
}

// one runs one schema file.
func (o schemaBench) one(path string, tok *tokenizer.Tokenizer, vocab *gcd.Vocab, trie *gcd.Trie, rng *rand.Rand) schemaResult {
	p, err := prepare(path, tok)
	r := p.r
	fail := func(status string, err error) schemaResult {
		r.Status, r.Error = status, err.Error()
		return r
	}
	if err != nil {
		return fail("error", err)
	}
	runtime.GC()
	var g *grammar.Grammar
	var masker *gcd.Masker
	c0, cpuOK := threadCPU()
	t0 := time.Now()
	phase("compile", func() {
		if g, err = jsonschema.Compile(r.Name, p.schema); err == nil {
			masker = gcd.NewMasker(earley.New(g), vocab, trie)
		}
	})
	if err != nil {
		r.Keyword = rejectedKeyword(err.Error())
		return fail("rejected", err) // the other engine still gets the test instance
	}
	r.CompileMS = ms(time.Since(t0))
	if c1, ok := threadCPU(); ok && cpuOK {
		r.CompileCPUMS = ms(c1 - c0)
	}

	text, from, err := o.instance(g, p.tests, p.check, rng)
	if err != nil {
		return fail("wrong", err) // the other engine still gets the test instance
	}
	if text == nil {
		r.Status, r.Instance, r.From, r.IDs = "no_instance", "", "", nil
		return r
	}
	r.Instance, r.From = string(text), from
	r.IDs = tok.Encode(r.Instance, false)
	if err := o.step(&r, g, vocab, masker.NewState()); err != nil {
		return fail("wrong", err)
	}
	r.Status = "ok"
	return r
}

// validTests returns the test instances marked valid that the
// independent validator also accepts (all marked valid when it is
// unavailable for this schema).
func validTests(c schemaCase, check func([]byte) error) []*jsonschema.Value {
	var out []*jsonschema.Value
	for _, t := range c.Tests {
		if !t.Valid || check(t.Data) != nil {
			continue
		}
		if v, err := jsonschema.ParseValue(t.Data); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// instance returns the text to step through: the first valid test
// instance, written as the grammar wants it, or a sampled sentence. A
// valid instance the grammar refuses, or a sampled sentence the validator
// refuses, is an error (the grammar is wrong).
func (o schemaBench) instance(g *grammar.Grammar, tests []*jsonschema.Value, check func([]byte) error, rng *rand.Rand) ([]byte, string, error) {
	if len(tests) > 0 {
		text, ok := jsonschema.Write(earley.New(g), tests[0])
		if !ok {
			return nil, "", fmt.Errorf("valid instance refused: %s", jsonschema.Canonical(tests[0]))
		}
		return text, "test", nil
	}
	for range o.instanceSamples {
		text, err := grammar.SampleLimit(g, rng, 12, 4000)
		if err != nil {
			continue
		}
		if err := check(text); err != nil {
			return nil, "", fmt.Errorf("sampled sentence %q is invalid: %v", text, err)
		}
		return text, "sampled", nil
	}
	return nil, "", nil
}

// step steps through r.IDs with the masker (as "gasp bench masks" does,
// one pass), recording each mask's time and allowed count.
func (o schemaBench) step(r *schemaResult, g *grammar.Grammar, vocab *gcd.Vocab, st *gcd.State) error {
	w := &maskWorkload{ids: r.IDs, vocab: vocab}
	rep := maskReport{StepUS: make([]float64, len(r.IDs)+1)}
	runtime.GC()
	run := maskRun{o: maskBench{verify: o.verify}, w: w, g: g, rep: &rep, first: true}
	var err error
	phase("steps", func() { err = run.pass(st) })
	r.StepUS, r.CPUUS, r.Allowed, r.Verified = run.steps, run.cpus, rep.Allowed, rep.Verified
	return err
}

// phase runs f with its CPU profile samples labelled phase=name (see
// --cpuprofile; go tool pprof -tagfocus phase=compile).
func phase(name string, f func()) {
	pprof.Do(context.Background(), pprof.Labels("phase", name), func(context.Context) { f() })
}

// newInstanceCheck compiles schema with the independent validator
// (formats asserted, draft 2020-12 unless $schema says otherwise) and
// returns a check of instances; where the validator cannot compile the
// schema, every instance passes.
func newInstanceCheck(schema []byte) func([]byte) error {
	pass := func([]byte) error { return nil }
	doc, err := validator.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return pass
	}
	c := validator.NewCompiler()
	c.DefaultDraft(validator.Draft2020)
	c.AssertFormat()
	if c.AddResource("schema.json", doc) != nil {
		return pass
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		return pass
	}
	return func(inst []byte) error {
		v, err := validator.UnmarshalJSON(bytes.NewReader(inst))
		if err != nil {
			return err
		}
		return sch.Validate(v)
	}
}

// rejectedKeyword extracts the keyword a front-end error names: the last
// segment of its JSON pointer ("s.json#/properties/a/pattern: ..." gives
// "pattern").
func rejectedKeyword(msg string) string {
	i := strings.Index(msg, "#/")
	if i < 0 {
		return ""
	}
	ptr := msg[i+1:]
	if j := strings.IndexAny(ptr, ": "); j >= 0 {
		ptr = ptr[:j]
	}
	return ptr[strings.LastIndexByte(ptr, '/')+1:]
}
