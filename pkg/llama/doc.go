// Package llama runs Llama-3.x language models (Hugging Face LlamaForCausalLM checkpoints) with GoMLX, in
// float32, with a batched decoder over a key/value cache.
//
// The architecture is that of transformers' LlamaForCausalLM: token embedding; per layer RMSNorm,
// grouped-query attention with rotary position embeddings in the "rotate_half" convention (with the
// Llama-3.1 "llama3" frequency scaling, or "linear"), RMSNorm and a SwiGLU MLP, each with a residual
// connection; a final RMSNorm and the output projection, which may be tied to the embedding. Config reads
// config.json; weights are read from safetensors through package hf, with their Hugging Face names, and
// every tensor's shape is checked against the configuration.
//
// # Use
//
//	m, err := llama.Load(dir, llama.Options{MaxSeq: 1024})
//	s, err := m.NewSession(64)          // 64 rows decoded together
//	logits, err := s.Prefill(prompt)    // the prompt, computed once, in every row
//	// ... sample one token per row from logits ...
//	next, err := s.Step(tokens, rows)   // append tokens[j] to row rows[j]; next[j] = logits after it
//	err = s.Truncate(row, n)            // row goes on from position n, keeping its first n tokens
//
// Each row has its own length (Session.Len). Step computes the listed rows in one batched execution and
// leaves the other rows untouched, so rows of different lengths advance independently. Truncate only resets
// a row's length: the cached keys and values of the kept prefix are reused and later steps overwrite the
// rest. This is what Metropolis–Hastings resampling of a suffix needs. Model.Forward computes the logits of
// a whole sequence without any cache; the tests check the cached decoder against it and both against an
// independent numpy implementation (testdata/make_reference.py).
//
// # No recompilation
//
// GoMLX compiles one graph per input shape, so every graph here has a fixed shape: a decode step takes
// [B] token ids plus host-computed per-row inputs — the rotary cos/sin of each row's position, an additive
// attention mask over the cache slots, and the (row, slot) each row writes — so one compiled graph serves
// every step of a session of B rows, whatever the rows' lengths. Prefill runs fixed-size chunks
// (Options.PrefillChunk, the last one padded) into a one-row cache, so prompts of any length share one graph,
// and copies that row into the session's rows on the host; the model remembers the last prompt it prefilled,
// so that the next session with that prompt (another sampler on the same task) skips the computation. A
// model compiles one decode graph per batch size and cache length used, and one prefill graph per cache
// length (Model.Compiles counts them). Sessions have Options.MaxSeq cache positions per row, or fewer
// (NewSessionSeq): every decoding step attends over the whole cache, so a cache sized to the rows is faster.
//
// The cache of a layer is K [B, kvHeads, HeadDim, S+1] and V [B, kvHeads, S+1, HeadDim] for S positions: the
// layouts the pure-Go backend's matrix multiplication works in, so attention reads the cache without copying
// it. Cache writes are in place and cost O(B·kvHeads·HeadDim): the cache buffers are donated to each
// execution, and a ScatterMin of -inf followed by a ScatterMax of the new values replaces exactly the written
// slots (the pure-Go backend has no DynamicUpdateSlice; a Where over the whole cache costs O(cache) per step).
// Slot S is never attended: rows left out of a step and prefill padding write there.
//
// # Backends
//
// Options.Backend, else $GOMLX_BACKEND, else "go" selects the GoMLX backend. By default this package links
// only the pure-Go backend (github.com/gomlx/compute/gobackend), which needs no cgo and no downloads; built
// with -tags xla it also links XLA/PJRT ("xla:cpu", "xla:cuda"; see environment.md). Build with
// GOEXPERIMENT=simd for the pure-Go backend's AVX2/AVX-512 matrix kernels, and run such binaries with
// GODEBUG=cpu.fma=off (math.Exp is otherwise 100× slower in them; scripts/goenv.sh sets both). BackendConfig
// adds "ops_sequential" to pure-Go configurations: its parallel op scheduler can deadlock. Weights are kept
// transposed and the caches laid out so that every product is in the layout the SIMD kernels run fastest on
// (see Config.deviceSpecs). "gasp bench lm" measures decoding and prefill throughput.
package llama
