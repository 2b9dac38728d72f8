package llama

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	backends "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/dtypes/bfloat16"
	_ "github.com/gomlx/compute/gobackend" // registers the pure-Go backend "go"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"

	"github.com/gasplab/gasp/pkg/hf"
)

// DefaultBackend returns the backend used when neither Options.Backend nor $GOMLX_BACKEND names one: the
// cpu engine (CPUBackend), on every CPU and build. Its kernels are AVX-512 or AVX2 in amd64 binaries built with
// GOEXPERIMENT=simd, portable Go otherwise (CPUKernels says which, SIMDKernels what a SIMD build would run);
// even portable, it is faster than GoMLX's pure-Go backend "go" on the models gasp runs on a CPU, which
// interprets a step op by op.
func DefaultBackend() string { return CPUBackend }

// Backend returns the backend a model opened with Options.Backend b runs on: b, else $GOMLX_BACKEND, else
// DefaultBackend().
func Backend(b string) string {
	if b != "" {
		return b
	}
	if b = os.Getenv(backends.ConfigEnvVar); b != "" {
		return b
	}
	return DefaultBackend()
}

// DefaultMaxSeq bounds the default cache length (Options.MaxSeq = 0): the smaller of this and the model's
// max_position_embeddings.
const DefaultMaxSeq = 2048

// DefaultPrefillChunk is the default number of prompt tokens computed by one prefill graph execution.
const DefaultPrefillChunk = 32

// Options configures a Model.
type Options struct {
	// Backend is the engine: CPUBackend ("cpu"), or a GoMLX backend configuration as in $GOMLX_BACKEND
	// ("go", "go:ops_sequential", "xla:cuda", ...). "" means $GOMLX_BACKEND when set, else DefaultBackend().
	// Only GoMLX backends compiled into the program can be used: this package imports the pure-Go one only.
	Backend string
	// MaxSeq is the length of every session's KV cache: the most tokens (prompt included) a row can hold.
	// 0 means min(DefaultMaxSeq, max_position_embeddings). It may not exceed max_position_embeddings.
	MaxSeq int
	// Batch is the number of rows of a session made by NewSession(0); 0 means 1.
	Batch int
	// PrefillChunk is the number of prompt tokens one prefill execution of a GoMLX graph computes (prompts
	// are padded to a multiple of it, so the prefill graph compiles once); 0 means min(DefaultPrefillChunk,
	// MaxSeq). The cpu engine computes prompts 256 tokens at a time, unpadded.
	PrefillChunk int
	// DType is the dtype of the weights and KV caches: hf.F32, hf.BF16, or "" (auto): the checkpoint's
	// dtype (BF16 when its embedding is BF16, else F32) on XLA, and F32 on the pure-Go backend and the cpu
	// engine (see ResolveDType). Activations, norms and softmax are float32 everywhere; the cpu engine
	// keeps only its weight matrices and embedding in bfloat16, its caches in float32.
	// ParseDType reads it from a command line.
	DType hf.DType
	// BF16Products, with DType BF16 on the cpu engine only, rounds activations to bfloat16 where they enter
	// a weight product and multiplies bfloat16 pairs (kernels.MatMulBF16Pairs): on a CPU with AVX512-BF16
	// one instruction does twice the multiply-adds of a float32 one, so batched steps run about twice as
	// fast; batch-1 steps, bound by reading the weights, do not change. It computes what llama.cpp and GPUs
	// compute from bfloat16 weights, no longer the float32 engine's logits on the rounded weights
	// (TestCPUBF16Products gives the difference). A row's logits still do not depend on the rows beside it.
	BF16Products bool
}

// ParseDType reads a dtype as a command line spells it, case-insensitively: "f32" (or "float32"), "bf16"
// (or "bfloat16"), or "auto" (also ""), which is "" in Options.DType.
func ParseDType(s string) (hf.DType, error) {
	switch strings.ToLower(s) {
	case "f32", "float32":
		return hf.F32, nil
	case "bf16", "bfloat16":
		return hf.BF16, nil
	case "", "auto":
		return "", nil
	}
	return "", fmt.Errorf("llama: dtype %q is not one of f32, bf16, auto", s)
}

// ResolveDType returns the weight and cache dtype, hf.F32 or hf.BF16, that Options.DType (want) selects for
// a backend configuration and a checkpoint whose embedding has dtype ckpt ("" when unknown).
//
// Auto ("") on the pure-Go backend and the cpu engine is F32: the pure-Go backend's bfloat16 kernels
// convert every element to float32 as they go, and bf16 decoding measured slower there than f32
// (BENCHMARKS.md); the cpu engine's bf16 halves the weights' memory (a choice to make, not a default).
// Elsewhere (XLA) it is the checkpoint's own dtype, so that an 8B bf16 checkpoint takes 16 GB, not 32.
func ResolveDType(want hf.DType, backend string, ckpt hf.DType) (hf.DType, error) {
	switch want {
	case hf.F32:
		return hf.F32, nil
	case hf.BF16:
		return hf.BF16, nil
	case "":
		name, _, _ := strings.Cut(backend, ":")
		if name != "go" && name != CPUBackend && ckpt == hf.BF16 {
			return hf.BF16, nil
		}
		return hf.F32, nil
	}
	return "", fmt.Errorf("llama: dtype %q is not one of F32, BF16, \"\" (auto); ParseDType reads f32, bf16, auto", want)
}

// gomlxDType is a resolved dtype (ResolveDType) as GoMLX names it.
func gomlxDType(dt hf.DType) dtypes.DType {
	if dt == hf.BF16 {
		return dtypes.BFloat16
	}
	return dtypes.Float32
}

// Model is a decoder of one of the supported families (Llama-3.x, Qwen2, Qwen3; Config.ModelType) with its weights
// in the cpu engine (float32) or on a GoMLX backend (matrices and KV caches in float32 or bfloat16,
// Options.DType), computing activations in float32.
//
// A Model is safe for concurrent use by multiple goroutines; each Session is not.
type Model struct {
	cfg      Config
	opts     Options
	cpu      *cpuModel         // the cpu engine's weights; nil on GoMLX backends
	backend  backends.Backend  // nil on the cpu engine
	dtype    dtypes.DType      // of the weight matrices and the KV caches: Float32 or BFloat16
	weights  []backends.Buffer // in the order of cfg.deviceSpecs(transposed)
	tiedHead any               // while loading: the tied embedding's copy ([]float32 or []bfloat16.BFloat16), added last

	// transposed: the Linear weights are kept as [in, out] rather than Hugging Face's [out, in]. Only the
	// pure-Go backend wants it: x·Wᵀ runs 10× slower there (its "transposed" small-matrix kernel reduces each
	// output element separately; measured at batch 16 with GoMLX v0.28.1 and SIMD). XLA on a GPU wants
	// [out, in]: at batch 1 it turns each product into a reduction, which reads [in, out] column-wise.
	transposed bool
	invFreq    []float64

	mu         sync.Mutex
	graphs     map[graphKey]*graph.Graph
	compiles   int     // number of graphs compiled
	lastPrefix *prefix // the last prompt prefilled (Session.Prefill)
	prefixes   int     // prompts computed by Session.Prefill (not remembered)
	closed     bool
}

// Load reads a model directory: config.json and the safetensors checkpoint (model.safetensors or a sharded
// model.safetensors.index.json), in any float dtype the checkpoint reader converts to float32.
// Every tensor the architecture needs must be present with the shape the configuration implies.
func Load(dir string, opts Options) (*Model, error) {
	cfg, err := LoadConfig(dir)
	if err != nil {
		return nil, err
	}
	ckpt, err := hf.OpenCheckpoint(dir)
	if err != nil {
		return nil, fmt.Errorf("llama: %w", err)
	}
	defer ckpt.Close()
	if err := checkCheckpoint(cfg, ckpt); err != nil {
		return nil, fmt.Errorf("llama: %s: %w", dir, err)
	}
	info, _ := ckpt.Info(embedName)
	m, err := newModel(cfg, opts, info.DType)
	if err != nil {
		return nil, err
	}
	if m.backend == nil {
		m.cpu, err = newCPUModel(cfg, m.opts.MaxSeq, m.invFreq, m.opts.DType == hf.BF16, m.opts.BF16Products, func(s weightSpec, bf16 bool) (matrix, error) {
			if bf16 { // straight from a BF16 checkpoint's bytes, or rounded as read
				w, err := ckpt.BFloat16(s.name)
				return matrix{bf16: w}, err
			}
			w, err := ckpt.Float32(s.name)
			return matrix{f32: w}, err
		})
		if err != nil {
			return nil, fmt.Errorf("llama: %s: %w", dir, err)
		}
		return m, nil
	}
	for _, spec := range cfg.weightSpecs() {
		if err := m.loadWeight(ckpt, spec); err != nil {
			m.Close()
			return nil, fmt.Errorf("llama: %s: %w", dir, err)
		}
	}
	if err := m.addTiedHead(); err != nil {
		m.Close()
		return nil, fmt.Errorf("llama: %s: %w", dir, err)
	}
	return m, nil
}

// loadWeight reads one weight from the checkpoint in the dtype it takes on the device: bfloat16 matrices
// straight from a BF16 checkpoint's bytes, with no float32 copy.
func (m *Model) loadWeight(ckpt *hf.Checkpoint, spec weightSpec) error {
	if m.weightDType(spec) == dtypes.BFloat16 {
		bits, err := ckpt.BFloat16(spec.name)
		if err != nil {
			return err
		}
		return addWeight(m, spec, unsafeBF16(bits))
	}
	data, err := ckpt.Float32(spec.name)
	if err != nil {
		return err
	}
	return addWeight(m, spec, data)
}

// checkCheckpoint verifies that every weight is present with the expected shape, before any data is read.
func checkCheckpoint(cfg Config, ckpt *hf.Checkpoint) error {
	var errs []error
	for _, spec := range cfg.weightSpecs() {
		info, ok := ckpt.Info(spec.name)
		if !ok {
			errs = append(errs, fmt.Errorf("tensor %q is missing from the checkpoint", spec.name))
			continue
		}
		if !slices.Equal(info.Shape, spec.shape) {
			errs = append(errs, fmt.Errorf("tensor %q has shape %v, want %v (from config.json)", spec.name, info.Shape, spec.shape))
		}
	}
	return errors.Join(errs...)
}

// New builds a model from weights held in memory, keyed by their Hugging Face names (see
// Config.WeightNames), each a flat row-major float32 slice of the shape Config.WeightShape gives.
// Weights the architecture does not use are ignored. The slices are copied (rounded to bfloat16 when
// Options.DType is BF16; auto is F32 here).
func New(cfg Config, weights map[string][]float32, opts Options) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var errs []error
	for _, spec := range cfg.weightSpecs() {
		data, ok := weights[spec.name]
		if !ok {
			errs = append(errs, fmt.Errorf("tensor %q is missing", spec.name))
		} else if len(data) != spec.size() {
			errs = append(errs, fmt.Errorf("tensor %q has %d elements, want shape %v (%d elements)", spec.name, len(data), spec.shape, spec.size()))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("llama: %w", err)
	}
	m, err := newModel(cfg, opts, "")
	if err != nil {
		return nil, err
	}
	if m.backend == nil {
		m.cpu, err = newCPUModel(cfg, m.opts.MaxSeq, m.invFreq, m.opts.DType == hf.BF16, m.opts.BF16Products, func(s weightSpec, bf16 bool) (matrix, error) {
			if bf16 {
				return roundedMatrix(weights[s.name]), nil
			}
			return matrix{f32: slices.Clone(weights[s.name])}, nil
		})
		return m, err
	}
	for _, spec := range cfg.weightSpecs() {
		data := weights[spec.name]
		if m.weightDType(spec) == dtypes.BFloat16 {
			err = addWeight(m, spec, toBFloat16(data))
		} else {
			err = addWeight(m, spec, data)
		}
		if err != nil {
			m.Close()
			return nil, fmt.Errorf("llama: %w", err)
		}
	}
	if err := m.addTiedHead(); err != nil {
		m.Close()
		return nil, fmt.Errorf("llama: %w", err)
	}
	return m, nil
}

// newModel validates the options and creates the backend; the weights are added by the caller. ckpt is the
// checkpoint's dtype, for Options.DType "" (auto).
func newModel(cfg Config, opts Options, ckpt hf.DType) (*Model, error) {
	if opts.MaxSeq < 0 || opts.Batch < 0 || opts.PrefillChunk < 0 {
		return nil, fmt.Errorf("llama: negative option: MaxSeq %d, Batch %d, PrefillChunk %d", opts.MaxSeq, opts.Batch, opts.PrefillChunk)
	}
	if opts.MaxSeq == 0 {
		opts.MaxSeq = min(DefaultMaxSeq, cfg.MaxPositionEmbeddings)
	}
	if opts.MaxSeq > cfg.MaxPositionEmbeddings {
		return nil, fmt.Errorf("llama: MaxSeq %d exceeds the model's max_position_embeddings %d", opts.MaxSeq, cfg.MaxPositionEmbeddings)
	}
	if opts.Batch == 0 {
		opts.Batch = 1
	}
	if opts.PrefillChunk == 0 {
		opts.PrefillChunk = min(DefaultPrefillChunk, opts.MaxSeq)
	}
	opts.Backend = Backend(opts.Backend)
	var err error
	if opts.DType, err = ResolveDType(opts.DType, opts.Backend, ckpt); err != nil {
		return nil, err
	}
	if name, _, _ := strings.Cut(opts.Backend, ":"); name == CPUBackend && opts.Backend != CPUBackend {
		return nil, fmt.Errorf("llama: backend %q: the cpu engine takes no options (use %q)", opts.Backend, CPUBackend)
	}
	if opts.BF16Products && (opts.Backend != CPUBackend || opts.DType != hf.BF16) {
		return nil, fmt.Errorf("llama: BF16Products needs the %q backend and dtype BF16, not backend %q and dtype %s", CPUBackend, opts.Backend, opts.DType)
	}
	var backend backends.Backend
	if opts.Backend != CPUBackend {
		if backend, err = newBackend(opts.Backend); err != nil {
			return nil, err
		}
	}
	name, _, _ := strings.Cut(opts.Backend, ":")
	return &Model{
		cfg:        cfg,
		opts:       opts,
		backend:    backend,
		dtype:      gomlxDType(opts.DType),
		transposed: name == "go",
		invFreq:    cfg.InvFreq(),
		graphs:     make(map[graphKey]*graph.Graph),
	}, nil
}

// NewBackend creates the GoMLX backend of a configuration ("go", "xla:cuda", "xla:/path/to/plugin.so", ...)
// as models do (BackendConfig and XLAFlags applied), turning the registry's panics into errors. The caller
// finalizes it.
func NewBackend(config string) (backends.Backend, error) { return newBackend(config) }

// newBackend creates a GoMLX backend, turning the registry's panics into errors.
func newBackend(config string) (b backends.Backend, err error) {
	config = BackendConfig(config)
	name, _, _ := strings.Cut(config, ":")
	if !slices.Contains(backends.List(), name) {
		list := backends.List()
		slices.Sort(list)
		return nil, fmt.Errorf("llama: GoMLX backend %q is not compiled in (available: %s; and the cpu engine %q)", name, strings.Join(list, ", "), CPUBackend)
	}
	if err := setXLAFlags(config); err != nil {
		return nil, fmt.Errorf("llama: GoMLX backend %q: %w", config, err)
	}
	var newErr error
	err = catch(func() {
		b, newErr = backends.NewWithConfig(config)
	})
	if err == nil {
		err = newErr
	}
	if err != nil {
		return nil, fmt.Errorf("llama: GoMLX backend %q: %w", config, err)
	}
	return b, nil
}

// BackendConfig returns the configuration to use for a GoMLX backend configuration such as "go" or
// "go:parallelism=2": for the pure-Go backend it adds "ops_sequential" unless the configuration chooses an
// ops_* mode itself. Other backends' configurations are returned unchanged.
//
// Why: the pure-Go backend (github.com/gomlx/compute v0.1.0, as GoMLX v0.26 before it) runs independent ops
// in parallel on its worker pool, and a large matrix multiplication running on a pool worker waits for the
// pool to run its parts. Two such multiplications at once can each hold workers the other waits for and
// deadlock: seen with parallelism 1, and on this project's 2-CPU machines in a training step after a few
// dozen steps. With ops run one after another, each multiplication still uses every worker, and Llama's
// graphs are chains of dependent ops anyway, so little is lost.
func BackendConfig(config string) string {
	name, opts, _ := strings.Cut(config, ":")
	if name != "go" {
		return config
	}
	for _, o := range strings.Split(opts, ",") {
		key, _, _ := strings.Cut(o, "=")
		if key == "ops_sequential" || key == "ops_parallel" {
			return config
		}
	}
	if opts == "" {
		return name + ":ops_sequential"
	}
	return config + ",ops_sequential"
}

// weightDType is the dtype of a weight on the device: the model's dtype for matrices, float32 for the norms'
// vectors (small, and used in float32 arithmetic).
func (m *Model) weightDType(spec weightSpec) dtypes.DType {
	if len(spec.shape) == 1 {
		return dtypes.Float32
	}
	return m.dtype
}

// addWeight appends one weight, transposed if the device keeps it so, to m's device weights.
func addWeight[T float32 | bfloat16.BFloat16](m *Model, spec weightSpec, data []T) error {
	shape := spec.shape
	if m.transposed && spec.linear() {
		data, shape = transpose(data, shape[0], shape[1]), []int{shape[1], shape[0]}
	}
	buf, err := m.backend.BufferFromFlatData(0, data, shapes.Make(m.weightDType(spec), shape...))
	if err != nil {
		return fmt.Errorf("tensor %q: %w", spec.name, err)
	}
	m.weights = append(m.weights, buf)
	if spec.name == embedName && m.cfg.TieWordEmbeddings {
		m.tiedHead = slices.Clone(data)
		if m.transposed {
			m.tiedHead = transpose(data, shape[0], shape[1])
		}
	}
	return nil
}

// addTiedHead adds the copy of a tied embedding as the last device weight (see deviceSpecs).
func (m *Model) addTiedHead() error {
	if !m.cfg.TieWordEmbeddings {
		return nil
	}
	specs := m.cfg.deviceSpecs(m.transposed)
	buf, err := m.backend.BufferFromFlatData(0, m.tiedHead, shapes.Make(m.dtype, specs[len(specs)-1].shape...))
	m.tiedHead = nil
	if err != nil {
		return fmt.Errorf("tied output head: %w", err)
	}
	m.weights = append(m.weights, buf)
	return nil
}

// transpose returns the transpose of the row-major matrix a [rows, cols]. Large matrices are split by
// rows over GOMAXPROCS goroutines: loading Llama-3.1-8B transposes 7 GB of weights, ~50 s on one core.
func transpose[T any](a []T, rows, cols int) []T {
	t := make([]T, len(a))
	workers := min(runtime.GOMAXPROCS(0), rows/transposeBlock)
	if len(a) < 1<<20 || workers < 2 {
		transposeRows(t, a, rows, cols, 0, rows)
		return t
	}
	per := (rows/transposeBlock + workers - 1) / workers * transposeBlock
	var wg sync.WaitGroup
	for r0 := 0; r0 < rows; r0 += per {
		wg.Go(func() { transposeRows(t, a, rows, cols, r0, min(r0+per, rows)) })
	}
	wg.Wait()
	return t
}

// transposeBlock is transpose's cache blocking, and the unit in which it splits rows among goroutines.
const transposeBlock = 32

// transposeRows writes rows [r0, r1) of a [rows, cols] into columns [r0, r1) of t [cols, rows].
func transposeRows[T any](t, a []T, rows, cols, r0, r1 int) {
	const blk = transposeBlock
	for i0 := r0; i0 < r1; i0 += blk {
		for j0 := 0; j0 < cols; j0 += blk {
			for i := i0; i < min(i0+blk, r1); i++ {
				for j := j0; j < min(j0+blk, cols); j++ {
					t[j*rows+i] = a[i*cols+j]
				}
			}
		}
	}
}

// unsafeBF16 views bfloat16 bits as GoMLX's bfloat16 type (the same uint16 representation), without a copy.
func unsafeBF16(bits []uint16) []bfloat16.BFloat16 {
	if len(bits) == 0 {
		return nil
	}
	return unsafe.Slice((*bfloat16.BFloat16)(unsafe.Pointer(&bits[0])), len(bits))
}

// toBFloat16 rounds float32 values to bfloat16, to nearest even (hf.BFloat16).
func toBFloat16(a []float32) []bfloat16.BFloat16 {
	out := make([]bfloat16.BFloat16, len(a))
	for i, v := range a {
		out[i] = bfloat16.BFloat16(hf.BFloat16(v))
	}
	return out
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// DType returns the dtype of the weight matrices and the KV caches: hf.F32 or hf.BF16.
func (m *Model) DType() hf.DType { return m.opts.DType }

// Options returns the options in effect, defaults filled in (DType resolved to hf.F32 or hf.BF16).
func (m *Model) Options() Options { return m.opts }

// MaxSeq returns the cache length of the model's sessions.
func (m *Model) MaxSeq() int { return m.opts.MaxSeq }

// Close releases the weights and the backend. The model and its sessions must not be used afterwards.
func (m *Model) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	m.closed = true
	for _, g := range m.graphs {
		g.Finalize()
	}
	if p := m.lastPrefix; p != nil {
		p.release()
		m.lastPrefix = nil
	}
	for _, b := range m.weights {
		_ = b.Finalize()
	}
	m.weights = nil
	m.cpu = nil
	if m.backend != nil {
		m.backend.Finalize()
	}
}

// Forward computes the logits at every position of ids without any cache: the reference that the cached
// decoder is tested against. It compiles one graph per distinct length. The result has len(ids) rows of
// VocabSize logits.
func (m *Model) Forward(ids []int) ([][]float32, error) {
	T := len(ids)
	if T == 0 {
		return nil, errors.New("llama: Forward: no ids")
	}
	if T > m.cfg.MaxPositionEmbeddings {
		return nil, fmt.Errorf("llama: Forward: %d ids exceed max_position_embeddings %d", T, m.cfg.MaxPositionEmbeddings)
	}
	if err := m.checkIDs(ids); err != nil {
		return nil, fmt.Errorf("llama: Forward: %w", err)
	}
	if c := m.cpuEngine(); c != nil {
		return c.forward(ids), nil
	} else if m.backend == nil {
		return nil, errors.New("llama: model is closed")
	}
	g, err := m.graph(graphKey{kind: forwardGraph, rows: T}, m.buildForward)
	if err != nil {
		return nil, err
	}
	half := m.cfg.HeadDim / 2
	tokens := make([]int32, T)
	cos := make([]float32, T*half)
	sin := make([]float32, T*half)
	bias := make([]float32, T*T)
	for i, id := range ids {
		tokens[i] = int32(id)
		m.rope(i, cos[i*half:(i+1)*half], sin[i*half:(i+1)*half])
		for j := i + 1; j < T; j++ {
			bias[i*T+j] = float32(math.Inf(-1))
		}
	}
	in := m.tokenInputs(tokens, cos, sin, bias, T)
	if in.err != nil {
		in.release()
		return nil, in.err
	}
	out, err := m.run(g, in)
	if err != nil {
		return nil, err
	}
	flat, err := m.readFloat32(out[0])
	if err != nil {
		return nil, err
	}
	V := m.cfg.VocabSize
	logits := make([][]float32, T)
	for i := range logits {
		logits[i] = flat[i*V : (i+1)*V : (i+1)*V]
	}
	return logits, nil
}

// rope writes cos and sin of position·f_i, i < HeadDim/2, computed in float64.
func (m *Model) rope(pos int, cos, sin []float32) { rotaryAngles(m.invFreq, pos, cos, sin) }

// rotaryAngles writes cos and sin of pos·invFreq[i], computed in float64: the graphs' and the cpu engine's.
func rotaryAngles(invFreq []float64, pos int, cos, sin []float32) {
	for i, f := range invFreq {
		s, c := math.Sincos(float64(pos) * f)
		cos[i], sin[i] = float32(c), float32(s)
	}
}

func (m *Model) checkIDs(ids []int) error {
	for i, id := range ids {
		if id < 0 || id >= m.cfg.VocabSize {
			return fmt.Errorf("token id %d (at %d) is outside [0, vocab_size %d)", id, i, m.cfg.VocabSize)
		}
	}
	return nil
}

// graphKey names a compiled graph: its kind and shapes. rows is the batch, or the sequence length for
// forward; seq is the caches' capacity in positions, and to the capacity grow enlarges them to.
type graphKey struct {
	kind          graphKind
	rows, seq, to int
}

type graphKind int

const (
	decodeGraph graphKind = iota
	prefillGraph
	forwardGraph
	fillGraph
	zerosGraph
	growGraph
)

// graph returns the compiled graph for key, building it with build on first use.
func (m *Model) graph(key graphKey, build func(g *graph.Graph, key graphKey) []*graph.Node) (*graph.Graph, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errors.New("llama: model is closed")
	}
	if g, ok := m.graphs[key]; ok {
		return g, nil
	}
	g := graph.NewGraph(m.backend, "llama")
	err := catch(func() {
		g.Compile(build(g, key)...)
	})
	if err != nil {
		g.Finalize()
		return nil, fmt.Errorf("llama: building graph: %w", err)
	}
	m.graphs[key] = g
	m.compiles++
	return g, nil
}

// Compiles returns the number of graphs the model has compiled so far: one per batch size and cache capacity
// (capFor) used for decode, fill, zeros and grow (per capacity pair); one per capacity for prefill; and one
// per Forward length.
func (m *Model) Compiles() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.compiles
}

// inputs collects the buffers of one graph execution: the weights (kept) and per-call inputs (donated).
type inputs struct {
	m      *Model
	bufs   []backends.Buffer
	donate []bool
	err    error
}

func (in *inputs) weights() {
	for _, b := range in.m.weights {
		in.bufs = append(in.bufs, b)
		in.donate = append(in.donate, false)
	}
}

// tokenInputs returns the inputs every pass of the model starts with: the weights, then len(tokens) tokens,
// the cos and sin of their rotary embeddings and their attention bias over span positions.
func (m *Model) tokenInputs(tokens []int32, cos, sin, bias []float32, span int) inputs {
	n, half := len(tokens), m.cfg.HeadDim/2
	in := inputs{m: m}
	in.weights()
	in.add(tokens, n)
	in.add(cos, n, half)
	in.add(sin, n, half)
	in.add(bias, n, span)
	return in
}

// add appends a fresh buffer holding flat ([]int32 or []float32) with the given dimensions.
func (in *inputs) add(flat any, dims ...int) {
	if in.err != nil {
		return
	}
	var dt dtypes.DType
	switch flat.(type) {
	case []int32:
		dt = dtypes.Int32
	case []float32:
		dt = dtypes.Float32
	default:
		panic(fmt.Sprintf("llama: unexpected input type %T", flat))
	}
	b, err := in.m.backend.BufferFromFlatData(0, flat, shapes.Make(dt, dims...))
	if err != nil {
		in.err = err
		return
	}
	in.bufs = append(in.bufs, b)
	in.donate = append(in.donate, true)
}

// addKept appends buffers the execution reads and leaves to the caller.
func (in *inputs) addKept(bufs ...backends.Buffer) {
	for _, b := range bufs {
		in.bufs = append(in.bufs, b)
		in.donate = append(in.donate, false)
	}
}

// addOwned appends buffers the execution consumes (the KV cache).
func (in *inputs) addOwned(bufs ...backends.Buffer) {
	for _, b := range bufs {
		in.bufs = append(in.bufs, b)
		in.donate = append(in.donate, true)
	}
}

// release frees the donated buffers of inputs that were not executed.
func (in *inputs) release() {
	for i, b := range in.bufs {
		if in.donate[i] && b != nil {
			_ = b.Finalize()
		}
	}
}

// run executes g and returns its outputs as buffers owned by the caller.
func (m *Model) run(g *graph.Graph, in inputs) (out []backends.Buffer, err error) {
	err = catch(func() {
		ts := g.RunWithBuffers(in.bufs, in.donate, 0)
		out = make([]backends.Buffer, len(ts))
		for i, t := range ts {
			out[i], err = t.DonateBuffer(m.backend, 0)
			if err != nil {
				panic(err)
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("llama: executing graph: %w", err)
	}
	return out, nil
}

// readFloat32 copies a float32 buffer to Go memory and frees it.
func (m *Model) readFloat32(b backends.Buffer) ([]float32, error) { return m.readFloat32Into(b, nil) }

// readFloat32Into is readFloat32 into flat, or into new memory when flat is not the buffer's size.
func (m *Model) readFloat32Into(b backends.Buffer, flat []float32) ([]float32, error) {
	defer func() { _ = b.Finalize() }()
	shape, err := b.Shape()
	if err != nil {
		return nil, err
	}
	if len(flat) != shape.Size() {
		flat = make([]float32, shape.Size())
	}
	if err := b.ToFlatData(flat); err != nil {
		return nil, err
	}
	return flat, nil
}

// catch runs f and returns the panic it raised, if any, as an error.
func catch(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			switch v := r.(type) {
			case error:
				err = v
			default:
				err = fmt.Errorf("%v", v)
			}
		}
	}()
	f()
	return nil
}

// cpuEngine returns the cpu engine's weights, or nil on GoMLX backends and once the model is closed.
func (m *Model) cpuEngine() *cpuModel {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cpu
}
