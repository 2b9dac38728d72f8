package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gasplab/gasp/pkg/llama"
	"github.com/gasplab/gasp/pkg/lm"
)

// lmReport is what "gasp bench lm --json" prints.
type lmReport struct {
	Model        string          `json:"model"`
	Params       int             `json:"params"`
	Backend      string          `json:"backend"`
	DType        string          `json:"dtype"`                   // of the weights and caches
	BF16Products bool            `json:"bf16_products,omitempty"` // llama.Options.BF16Products
	Threads      int             `json:"threads"`                 // GOMAXPROCS
	PromptLen    int             `json:"prompt_len"`
	PrefillTokS  float64         `json:"prefill_tokens_per_s"`
	PrefillCPU   float64         `json:"prefill_tokens_per_cpu_s"` // over the process's CPU time: robust to a busy machine
	Decode       []lmBatchReport `json:"decode"`
	BatchingGain float64         `json:"batching_gain"` // tokens/s at the largest batch over tokens/s at the smallest
	LoadS        float64         `json:"load_s"`        // reading the checkpoint and moving it to the device

	// MemoryEstimate is llama.EstimateMemory's peak for the largest batch at --max-seq positions, in bytes:
	// a GPU check compares it with the memory the device reports in use.
	MemoryEstimate int64 `json:"memory_estimate_bytes"`

	// Logits are the next-token logits after --logits-ids (absent without it): a GPU check compares them
	// with a reference without loading the model a second time.
	LogitsIDs int       `json:"logits_ids,omitempty"`
	Logits    []float32 `json:"logits,omitempty"`
}

type lmBatchReport struct {
	Batch      int     `json:"batch"`
	Steps      int     `json:"steps"`
	MSPerStep  float64 `json:"ms_per_step"`
	TokensPerS float64 `json:"tokens_per_s"` // aggregate: batch × steps / time
	// Over the process's CPU time (user + system) rather than wall time: on a machine shared with other
	// work, the wall time counts time the process waited for a core.
	CPUMSPerStep  float64 `json:"cpu_ms_per_step"`
	TokensPerCPUS float64 `json:"tokens_per_cpu_s"`
}

// cpuTime returns the process's CPU time so far (user + system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchLMFlagError says what is wrong with the flags of "gasp bench lm"
// ("" if nothing).
func benchLMFlagError(batches []int, batchErr error, promptLen, steps, threads, maxSeq int) string {
	switch {
	case batchErr != nil:
		return fmt.Sprintf("--batch: %v", batchErr)
	case len(batches) == 0:
		return "--batch lists no batch size"
	case slices.Min(batches) < 1 || slices.Max(batches) > 1_000_000:
		return fmt.Sprintf("--batch sizes must be in [1, 1000000], got %v", batches)
	case promptLen < 1:
		return fmt.Sprintf("--prompt-len must be at least 1, got %d", promptLen)
	case maxSeq <= promptLen || maxSeq > 1<<20:
		return fmt.Sprintf("--prompt-len %d must be less than --max-seq %d (at most %d)", promptLen, maxSeq, 1<<20)
	case steps < 1 || steps > 1_000_000:
		return fmt.Sprintf("--steps must be in [1, 1000000], got %d", steps)
	case threads < 0 || threads > 4096:
		return fmt.Sprintf("--threads must be in [0, 4096] (0: all CPUs), got %d", threads)
	}
	return ""
}

func runBenchLM(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("gasp bench lm", "gasp bench lm [--model DIR] [--backend B] [--batch 1,16,64] [--prompt-len N] [--steps N] [--threads N] [--dtype f32|bf16|auto] [--json] [--cpuprofile F] [--logits-ids \"ID ID ...\"]", `
Times a Llama model's batched, KV-cached decoding (default: the embedded model
data/models/tiny). For each batch size B it prefills a random prompt of
--prompt-len tokens once, shares it across the B rows and times --steps
decode steps, each computing next-token logits for all rows (B tokens);
rows that reach the cache's end are truncated back to the prompt. An untimed
pass of the same steps comes first (it compiles graphs and warms the heap),
then every row goes back to the prompt. Prefill
throughput is the prompt's tokens over its prefill time (median of 5
prompts, after 2 untimed ones; the prompts differ in their first token: a
prompt the model prefilled last is copied, not computed).
--backend chooses the engine: "cpu" (gasp's own, the default), "go" (GoMLX's pure-Go backend), "xla:cuda", ...; the
default is $GOMLX_BACKEND's, else llama.DefaultBackend. --threads N runs on
N threads (GOMAXPROCS, which bounds the pure-Go backend's workers too); for one core,
also pin the process: taskset -c 0 gasp bench lm --threads 1. Reports tokens/s per batch size and the batching gain (tokens/s
at the largest batch over the smallest), in wall time and per CPU second (the
process's user + system time: robust to a machine busy with other work).
--dtype chooses the weights' and caches' dtype (auto: the checkpoint's on XLA,
f32 on the CPU). Model loading and graph compilation are not timed.
--logits-ids also reports the next-token logits after the given ids, so that
one load of a large model serves a logits check too (the JSON's "logits").`, stdout, stderr)
	modelDir := cl.modelFlag()
	backendFlag := cl.String("backend", "", `engine: "cpu", "go", "xla:cuda", ... (default: $GOMLX_BACKEND, else cpu)`)
	batchList := cl.String("batch", "1,16,64", "comma-separated batch sizes")
	promptLen := cl.Int("prompt-len", 128, "prompt length in tokens")
	steps := cl.Int("steps", 64, "decode steps per batch size")
	threads := cl.Int("threads", 0, "threads (0: all CPUs)")
	maxSeq := cl.Int("max-seq", 512, "KV-cache length per row")
	asJSON := cl.Bool("json", false, "print one JSON object")
	cpuProfile := cl.String("cpuprofile", "", "write a CPU profile of the decode steps to this file (the untimed warm-up pass, which compiles the graphs, included)")
	logitsIDs := cl.String("logits-ids", "", "also report the next-token logits after these token ids (spaces or commas)")
	dtype := cl.String("dtype", "auto", "weights and cache dtype: f32, bf16 or auto")
	products := cl.Bool("bf16-products", false, "with --backend cpu --dtype bf16: multiply bfloat16 pairs, activations rounded (llama.Options.BF16Products)")
	if done, code := cl.parseNoArgs(args); done {
		return code
	}
	batches, err := parseInts(*batchList)
	want, derr := llama.ParseDType(*dtype)
	if derr != nil && err == nil {
		err = fmt.Errorf("--dtype: %w", derr)
		batches = []int{1}
	}
	if bad := benchLMFlagError(batches, err, *promptLen, *steps, *threads, *maxSeq); bad != "" {
		return cl.usageError("%s", bad)
	}
	ids, err := parseIDs(*logitsIDs)
	if err != nil {
		return cl.usageError("--logits-ids: %v", err)
	}
	if *modelDir == "" {
		if *modelDir, err = findDefaultModel(); err != nil {
			return cl.fail(err)
		}
	}
	maxBatch := slices.Max(batches)
	if err := checkModelMemory(*modelDir, maxBatch, *maxSeq, fmt.Sprintf("--batch %d", maxBatch)); err != nil {
		return cl.fail(err)
	}
	// GOMAXPROCS bounds the pure-Go backend's kernels too (they use at most GOMAXPROCS workers); its
	// "parallelism=N" option would say it again, and print it on os.Stdout, into the --json report.
	if *threads > 0 {
		runtime.GOMAXPROCS(*threads)
	}
	t0 := time.Now()
	m, err := llama.Load(*modelDir, llama.Options{MaxSeq: *maxSeq, Backend: *backendFlag, DType: want, BF16Products: *products})
	if err != nil {
		return cl.fail(err)
	}
	defer m.Close()
	loadS := time.Since(t0).Seconds()
	rep, err := benchLM(m, batches, *promptLen, *steps, *cpuProfile)
	if err != nil {
		return cl.fail(err)
	}
	rep.Model, rep.LoadS = *modelDir, loadS
	mem, err := llama.EstimateBackendMemory(m.Config(), m.Options().Backend, m.DType(), maxBatch, *maxSeq)
	if err != nil {
		return cl.fail(err)
	}
	rep.MemoryEstimate = mem.Peak()
	if len(ids) > 0 {
		if rep.Logits, err = lastLogits(m, ids); err != nil {
			return cl.fail(fmt.Errorf("--logits-ids: %w", err))
		}
		rep.LogitsIDs = len(ids)
	}
	if *asJSON {
		out, _ := json.Marshal(rep)
		fmt.Fprintf(stdout, "%s\n", out)
		return 0
	}
	rep.print(stdout)
	return 0
}

// lastLogits returns m's next-token logits after ids.
func lastLogits(m *llama.Model, ids []int) ([]float32, error) {
	logits, err := m.Forward(ids)
	if err != nil {
		return nil, err
	}
	last := logits[len(logits)-1]
	return last, lm.CheckFinite(last, "the ids")
}

// benchLM times m's prefill of a random prompt of promptLen tokens, then
// steps decode steps at each batch size, profiling those into cpuProfile
// when it is not "".
func benchLM(m *llama.Model, batches []int, promptLen, steps int, cpuProfile string) (lmReport, error) {
	cfg := m.Config()
	rng := rand.New(rand.NewPCG(1, 2))
	prompt := make([]int, promptLen)
	for i := range prompt {
		prompt[i] = rng.IntN(cfg.VocabSize)
	}
	rep := lmReport{Params: cfg.NumParams(), Backend: m.Options().Backend, DType: strings.ToLower(string(m.DType())),
		BF16Products: m.Options().BF16Products, Threads: runtime.GOMAXPROCS(0), PromptLen: promptLen}
	var err error
	if rep.PrefillTokS, rep.PrefillCPU, err = benchPrefill(m, prompt); err != nil {
		return rep, err
	}
	if cpuProfile != "" {
		stop, err := startCPUProfile(cpuProfile)
		if err != nil {
			return rep, err
		}
		defer stop()
	}
	for _, b := range batches {
		r, err := benchDecode(m, prompt, b, steps, rng)
		if err != nil {
			return rep, err
		}
		rep.Decode = append(rep.Decode, r)
	}
	first, last := rep.Decode[0], rep.Decode[len(rep.Decode)-1]
	rep.BatchingGain = last.TokensPerS / first.TokensPerS
	return rep, nil
}

// benchPrefill returns the prefill throughput of prompt in tokens per
// second of wall and of CPU time, medians of five runs. Two runs before
// them compile the graph and warm the heap and are not timed. Each run changes the prompt's first
// token, so that the model computes it rather than reusing the prompt it
// remembers (llama.Session.Prefill).
func benchPrefill(m *llama.Model, prompt []int) (tokS, tokCPUS float64, err error) {
	s, err := m.NewSession(1)
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	var wall, cpu []time.Duration
	const untimed = 2 // compiles the graph, warms the heap and the caches
	for i := range untimed + 5 {
		if err := s.Truncate(0, 0); err != nil {
			return 0, 0, err
		}
		p := slices.Clone(prompt)
		p[0] = (p[0] + i + 1) % m.Config().VocabSize
		t0, c0 := time.Now(), cpuTime()
		if _, err := s.Prefill(p); err != nil {
			return 0, 0, err
		}
		if i >= untimed {
			wall = append(wall, time.Since(t0))
			cpu = append(cpu, cpuTime()-c0)
		}
	}
	slices.Sort(wall)
	slices.Sort(cpu)
	n := float64(len(prompt))
	return n / wall[len(wall)/2].Seconds(), n / cpu[len(cpu)/2].Seconds(), nil
}

// startCPUProfile starts a CPU profile into the file path; stop ends it and
// closes the file.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// print writes the report as text.
func (rep *lmReport) print(w io.Writer) {
	first, last := rep.Decode[0], rep.Decode[len(rep.Decode)-1]
	dtype := rep.DType
	if rep.BF16Products {
		dtype += " (bfloat16 products)"
	}
	fmt.Fprintf(w, "model %s: %d parameters, backend %q, dtype %s, %d threads\n", rep.Model, rep.Params, rep.Backend, dtype, rep.Threads)
	fmt.Fprintf(w, "prefill (%d tokens): %.0f tokens/s (%.0f per CPU second)\n", rep.PromptLen, rep.PrefillTokS, rep.PrefillCPU)
	fmt.Fprintf(w, "%6s %8s %12s %12s %14s\n", "batch", "steps", "ms/step", "tokens/s", "tokens/cpu-s")
	for _, d := range rep.Decode {
		fmt.Fprintf(w, "%6d %8d %12.3f %12.0f %14.0f\n", d.Batch, d.Steps, d.MSPerStep, d.TokensPerS, d.TokensPerCPUS)
	}
	fmt.Fprintf(w, "batching gain (batch %d over batch %d): %.1fx\n", last.Batch, first.Batch, rep.BatchingGain)
}

// benchDecode times steps decode steps of a session of batch rows sharing prompt.
func benchDecode(m *llama.Model, prompt []int, batch, steps int, rng *rand.Rand) (lmBatchReport, error) {
	s, err := m.NewSession(batch)
	if err != nil {
		return lmBatchReport{}, err
	}
	defer s.Close()
	if _, err := s.Prefill(prompt); err != nil {
		return lmBatchReport{}, err
	}
	rows := make([]int, batch)
	tokens := make([]int, batch)
	for i := range rows {
		rows[i] = i
	}
	step := func() error {
		for i := range rows {
			if s.Len(i) >= m.MaxSeq() {
				if err := s.Truncate(i, len(prompt)); err != nil {
					return err
				}
			}
			tokens[i] = rng.IntN(m.Config().VocabSize)
		}
		_, err := s.Step(tokens, rows)
		return err
	}
	// One untimed pass of the same steps compiles the decode graphs and warms the heap (on this project's
	// VMs a page's first touch costs ~18 µs); then every row goes back to the prompt.
	for range steps {
		if err := step(); err != nil {
			return lmBatchReport{}, err
		}
	}
	for i := range rows {
		if err := s.Truncate(i, len(prompt)); err != nil {
			return lmBatchReport{}, err
		}
	}
	t0, c0 := time.Now(), cpuTime()
	for range steps {
		if err := step(); err != nil {
			return lmBatchReport{}, err
		}
	}
	el, cpu := time.Since(t0), cpuTime()-c0
	return lmBatchReport{Batch: batch, Steps: steps, MSPerStep: el.Seconds() * 1e3 / float64(steps),
		TokensPerS: float64(batch*steps) / el.Seconds(), CPUMSPerStep: cpu.Seconds() * 1e3 / float64(steps),
		TokensPerCPUS: float64(batch*steps) / cpu.Seconds()}, nil
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad number %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}
