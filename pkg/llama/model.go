package llama

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"

	backends "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	_ "github.com/gomlx/compute/gobackend" // registers the pure-Go backend "go"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"

	"github.com/gasplab/gasp/pkg/hf"
)

// DefaultBackend is the GoMLX backend used when neither Options.Backend nor $GOMLX_BACKEND names one:
// the pure-Go backend (package github.com/gomlx/compute/gobackend).
const DefaultBackend = "go"

// DefaultMaxSeq bounds the default cache length (Options.MaxSeq = 0): the smaller of this and the model's
// max_position_embeddings.
const DefaultMaxSeq = 2048

// DefaultPrefillChunk is the default number of prompt tokens computed by one prefill graph execution.
const DefaultPrefillChunk = 32

// Options configures a Model.
type Options struct {
	// Backend is the GoMLX backend configuration, as in $GOMLX_BACKEND ("go", or "go:ops_sequential", ...).
	// "" means $GOMLX_BACKEND when set, else DefaultBackend. Only backends compiled into the program can be
	// used: this package imports the pure-Go backend only.
	Backend string
	// MaxSeq is the length of every session's KV cache: the most tokens (prompt included) a row can hold.
	// 0 means min(DefaultMaxSeq, max_position_embeddings). It may not exceed max_position_embeddings.
	MaxSeq int
	// Batch is the number of rows of a session made by NewSession(0); 0 means 1.
	Batch int
	// PrefillChunk is the number of prompt tokens one prefill execution computes (prompts are padded to a
	// multiple of it, so the prefill graph compiles once); 0 means min(DefaultPrefillChunk, MaxSeq).
	PrefillChunk int
}

// Model is a Llama-3.x decoder with its weights on a GoMLX backend, computing in float32.
//
// A Model is safe for concurrent use by multiple goroutines; each Session is not.
type Model struct {
	cfg      Config
	opts     Options
	backend  backends.Backend
	weights  []backends.Buffer // in the order of cfg.deviceSpecs()
	tiedHead []float32         // while loading: the transposed tied embedding, added last
	invFreq  []float64

	mu         sync.Mutex
	decode     map[graphKey]*graph.Graph
	prefill    map[graphKey]*graph.Graph
	forward    map[graphKey]*graph.Graph
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
	m, err := newModel(cfg, opts)
	if err != nil {
		return nil, err
	}
	for _, spec := range cfg.weightSpecs() {
		data, err := ckpt.Float32(spec.name)
		if err != nil {
			m.Close()
			return nil, fmt.Errorf("llama: %s: %w", dir, err)
		}
		if err := m.addWeight(spec, data); err != nil {
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
// Weights the architecture does not use are ignored. The slices are copied.
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
	m, err := newModel(cfg, opts)
	if err != nil {
		return nil, err
	}
	for _, spec := range cfg.weightSpecs() {
		if err := m.addWeight(spec, weights[spec.name]); err != nil {
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

// newModel validates the options and creates the backend; the weights are added by the caller.
func newModel(cfg Config, opts Options) (*Model, error) {
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
	if opts.Backend == "" {
		opts.Backend = os.Getenv(backends.ConfigEnvVar)
		if opts.Backend == "" {
			opts.Backend = DefaultBackend
		}
	}
	backend, err := newBackend(opts.Backend)
	if err != nil {
		return nil, err
	}
	return &Model{
		cfg:     cfg,
		opts:    opts,
		backend: backend,
		invFreq: cfg.InvFreq(),
		decode:  make(map[graphKey]*graph.Graph),
		prefill: make(map[graphKey]*graph.Graph),
		forward: make(map[graphKey]*graph.Graph),
	}, nil
}

// newBackend creates a GoMLX backend, turning the registry's panics into errors.
func newBackend(config string) (b backends.Backend, err error) {
	config = BackendConfig(config)
	name, _, _ := strings.Cut(config, ":")
	if !slices.Contains(backends.List(), name) {
		list := backends.List()
		slices.Sort(list)
		return nil, fmt.Errorf("llama: GoMLX backend %q is not compiled in (available: %s)", name, strings.Join(list, ", "))
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

func (m *Model) addWeight(spec weightSpec, data []float32) error {
	shape := spec.shape
	if spec.transposed() {
		data, shape = transpose(data, shape[0], shape[1]), []int{shape[1], shape[0]}
	}
	buf, err := m.backend.BufferFromFlatData(0, data, shapes.Make(dtypes.Float32, shape...))
	if err != nil {
		return fmt.Errorf("tensor %q: %w", spec.name, err)
	}
	m.weights = append(m.weights, buf)
	if spec.name == embedName && m.cfg.TieWordEmbeddings {
		m.tiedHead = transpose(data, shape[0], shape[1])
	}
	return nil
}

// addTiedHead adds the transposed copy of a tied embedding as the last device weight (see deviceSpecs).
func (m *Model) addTiedHead() error {
	if !m.cfg.TieWordEmbeddings {
		return nil
	}
	V, H := m.cfg.VocabSize, m.cfg.HiddenSize
	buf, err := m.backend.BufferFromFlatData(0, m.tiedHead, shapes.Make(dtypes.Float32, H, V))
	m.tiedHead = nil
	if err != nil {
		return fmt.Errorf("tied output head: %w", err)
	}
	m.weights = append(m.weights, buf)
	return nil
}

// transpose returns the transpose of the row-major matrix a [rows, cols].
func transpose(a []float32, rows, cols int) []float32 {
	t := make([]float32, len(a))
	const blk = 32 // cache blocking
	for i0 := 0; i0 < rows; i0 += blk {
		for j0 := 0; j0 < cols; j0 += blk {
			for i := i0; i < min(i0+blk, rows); i++ {
				for j := j0; j < min(j0+blk, cols); j++ {
					t[j*rows+i] = a[i*cols+j]
				}
			}
		}
	}
	return t
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// Options returns the options in effect, defaults filled in.
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
	for _, g := range [...]map[graphKey]*graph.Graph{m.decode, m.prefill, m.forward} {
		for _, gr := range g {
			gr.Finalize()
		}
	}
	for _, b := range m.weights {
		_ = b.Finalize()
	}
	m.weights = nil
	m.backend.Finalize()
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
	g, err := m.graph(m.forward, graphKey{rows: T}, m.buildForward)
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
	in := inputs{m: m}
	in.weights()
	in.add(tokens, T)
	in.add(cos, T, half)
	in.add(sin, T, half)
	in.add(bias, T, T)
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
func (m *Model) rope(pos int, cos, sin []float32) {
	for i, f := range m.invFreq {
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

// graphKey names a compiled graph's shapes: rows is the batch (decode, prefill) or the sequence length
// (forward); seq is the session's cache length (0 for forward).
type graphKey struct{ rows, seq int }

// graph returns the compiled graph for key from cache, building it with build on first use.
func (m *Model) graph(cache map[graphKey]*graph.Graph, key graphKey, build func(g *graph.Graph, key graphKey) []*graph.Node) (*graph.Graph, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errors.New("llama: model is closed")
	}
	if g, ok := cache[key]; ok {
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
	cache[key] = g
	m.compiles++
	return g, nil
}

// Compiles returns the number of graphs the model has compiled so far (one per decode and prefill batch size
// and cache length, and Forward length used).
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
func (m *Model) readFloat32(b backends.Buffer) ([]float32, error) {
	defer func() { _ = b.Finalize() }()
	shape, err := b.Shape()
	if err != nil {
		return nil, err
	}
	flat := make([]float32, shape.Size())
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
