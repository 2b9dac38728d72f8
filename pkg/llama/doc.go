// Package llama runs Llama-3.x, Qwen2/Qwen2.5 and Qwen3 language models (Hugging Face LlamaForCausalLM,
// Qwen2ForCausalLM and Qwen3ForCausalLM checkpoints) with GoMLX or with its own CPU engine, with weights and
// key/value caches in float32 or bfloat16 and a batched decoder over the caches.
//
// The architecture is that of transformers' LlamaForCausalLM: token embedding; per layer RMSNorm,
// grouped-query attention with rotary position embeddings in the "rotate_half" convention (with the
// Llama-3.1 "llama3" frequency scaling, or "linear"), RMSNorm and a SwiGLU MLP, each with a residual
// connection; a final RMSNorm and the output projection, which may be tied to the embedding. The Qwen
// families are this decoder with one addition each (Config.ModelType; config.json's model_type says which):
// Qwen2 adds biases to the q, k and v projections (self_attn.{q,k,v}_proj.bias), and Qwen3 normalizes each
// query and key head over head_dim with an RMSNorm of its own weights (self_attn.q_norm.weight,
// k_norm.weight) before the rotary embedding; Qwen3's head_dim need not be hidden_size/heads. Config reads
// config.json and refuses what the code does not implement, naming the field: another model_type or
// architectures entry, sliding-window attention (use_sliding_window, layer_types), rope_scaling types other
// than llama3, linear and default (Qwen2.5's long-context "yarn" among them), partial rotary embeddings,
// attention or MLP biases the family does not have, and mixture-of-experts fields. Weights are read from
// safetensors through package hf, with their Hugging Face names, and every tensor's shape is checked
// against the configuration.
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
// independent numpy implementation of each family (testdata/make_reference.py), on random checkpoints
// (RandomWeights and WriteCheckpoint make them in Go).
//
// # Dtypes
//
// Options.DType chooses the dtype of the weight matrices and the KV caches: "f32", "bf16", or "auto" (the
// default): the checkpoint's dtype on XLA (bf16 for Llama-3.1-8B-Instruct: 16 GB of weights instead of 32),
// and f32 on the pure-Go backend, whose bfloat16 kernels convert every element as they go and measured
// slower than float32 (environment.md). bf16 weights are read straight from a BF16 checkpoint's bytes
// (hf.Checkpoint.BFloat16), with no float32 copy. Activations, norms, softmax and the logits are float32 in
// both: a product with a bfloat16 operand rounds the other to bfloat16 and accumulates in float32, as a GPU's
// bf16 matrix units do. The sampler's log-probabilities and everything Metropolis–Hastings uses are float64
// on the host, computed from the float32 logits. The tests compare bf16 against an exact numpy reference
// with a tolerance derived from bfloat16's rounding (bf16_test.go).
//
// # No recompilation, and attention over the used prefix
//
// GoMLX compiles one graph per input shape, so every graph here has a fixed shape: a decode step takes
// [B] token ids plus host-computed per-row inputs — the rotary cos/sin of each row's position, an additive
// attention mask over the cache slots, and the (row, slot) each row writes — so one compiled graph serves
// every step of a session of B rows whose caches have a given capacity, whatever the rows' lengths.
//
// A session's caches do not have MaxSeq positions from the start: they hold a length bucket (64, 96, 128,
// 192, 256, 384, ...; capFor) that covers the longest row, and grow on the device to the next bucket when a
// row needs it. A step attends over the caches it has, so its cost grows with the rows' lengths (at most
// 1.5 times what they need), not with MaxSeq, at the price of one decode graph per bucket reached. Prefill
// runs fixed-size chunks (Options.PrefillChunk, the last one padded) into a one-row cache of the prompt's
// bucket, which a device-side broadcast copies into every row of the session; the model remembers the last
// prompt it prefilled (its one-row cache stays on the device), so that the next session with that prompt
// (another sampler on the same task) skips the computation. New caches are zeroed, filled and grown by
// graphs on the device: a cache never crosses to the host, and only the logits, float32 [B, V], come back
// each step. Model.Compiles counts the graphs.
//
// The cache of a layer is K [B, kvHeads, HeadDim, S+1] and V [B, kvHeads, S+1, HeadDim] for a capacity of S
// positions: the layouts the pure-Go backend's matrix multiplication works in, so attention reads the cache
// without copying it. Cache writes are in place on the pure-Go backend and cost O(B·kvHeads·HeadDim): the
// cache buffers are donated to each execution, and a ScatterMin of -inf followed by a ScatterMax of the new
// values replaces exactly the written slots (the pure-Go backend has no DynamicUpdateSlice; a Where over the
// whole cache costs O(cache) per step). Slot S is never attended: rows left out of a step and prefill
// padding write there.
//
// # Device memory
//
// EstimateMemory gives a session's peak device memory:
//
//	weights + caches + temporaries,
//	caches      = 2·L·B·kvH·hd·(S+1)·e
//	temporaries = caches + 4·B·V + 4·B·(2·I + (heads + 2·kvH)·hd + 2·H + 2·heads·(S+1))
//
// with e = 2 (bf16) or 4 (f32) bytes. For Llama-3.1-8B in bf16, B = 100 and S = 1,024: 15.0 GiB of weights,
// 12.5 GiB of caches and 12.6 GiB of temporaries, 40 GiB at the peak ("gasp doctor" prints it for a model,
// and scripts/gpu-check.sh compares it with nvidia-smi). The temporaries hold a second copy of the caches
// because XLA cannot update a donated cache in place here: go-xla v0.4.0 passes PJRT the donation flags of
// an execution (Execute's donate []bool), but its StableHLO emits no input/output aliasing — neither
// tf.aliasing_output nor jax.buffer_donor on the main function's arguments — and GoMLX v0.28.1's
// compute.Builder has no way to mark a parameter as donatable at compile time, so XLA allocates every output
// anew. In-place cache updates on XLA need both upstream changes: a per-parameter "donatable" flag in the
// compute.Builder API (GoMLX/compute), and go-xla emitting jax.buffer_donor = true (or tf.aliasing_output
// = i for the output it should alias) for such parameters. The pure-Go backend reuses donated buffers
// already.
//
// # Backends
//
// Options.Backend, else $GOMLX_BACKEND, else DefaultBackend() selects the engine: "cpu" (CPUBackend, below),
// or a GoMLX backend. By default this package links only GoMLX's pure-Go backend "go"
// (github.com/gomlx/compute/gobackend), which needs no cgo and no downloads; built with -tags xla it also
// links XLA/PJRT ("xla:cpu", "xla:cuda"; see environment.md). DefaultBackend is "cpu" in every build: its
// portable kernels, in a build without GOEXPERIMENT=simd, are still faster than the pure-Go backend (the
// demo's time in BENCHMARKS.md). Build with
// GOEXPERIMENT=simd for the cpu engine's and the pure-Go backend's AVX2/AVX-512 kernels, and run such binaries with
// GODEBUG=cpu.fma=off (math.Exp is otherwise 100× slower in them; scripts/goenv.sh sets both). BackendConfig
// adds "ops_sequential" to pure-Go configurations: its parallel op scheduler can deadlock. On the pure-Go
// backend the Linear weights are kept transposed, [in, out], the layout its SIMD kernels run fastest on; on XLA
// they stay as Hugging Face stores them, [out, in], which XLA on a GPU reduces row-wise at batch 1 (1.7× faster
// decoding than [in, out] on an H200; Model.transposed, Config.deviceSpecs). "gasp bench lm" measures decoding
// and prefill throughput.
//
// # The cpu engine
//
// Backend "cpu" runs the same model without GoMLX, in float32, with the kernels of internal/kernels:
// AVX-512 matrix products (4 rows × 32 columns of fused multiply-adds a step, ~90 GFLOP/s on one core
// here; a single row, as in batch-1 decoding, streams the weight rows through a block of the output kept
// in L1, which is what a memory-bound product needs), attention, softmax and SwiGLU on vectors of 16; AVX2 versions on vectors of 8 (~55 % of that)
// where AVX-512 is missing, and portable Go (~2–4 GFLOP/s: 4 rows × 2 columns of sums in registers) without
// either or GOEXPERIMENT=simd; it is the default engine in every build. It
// exists because the GoMLX graph, interpreted by the pure-Go backend op by op, spent four fifths of a decode
// step outside its matrix kernels (reshapes and concatenations copying tensors, softmax over every cache
// slot, exps); rewriting the graphs had taken batch 64 from 3,100 to only 4,500 tokens/s a core. The engine differs from the graphs in what it skips, not in
// what it computes:
//
//   - q, k and v are one product with their matrices side by side (Qwen2's biases side by side too, added
//     after it; Qwen3's head norms run in place before the rotation), as are the MLP's gate and up;
//   - each row has its own cache (K transposed, [kvH][hd][cap], so that a query's scores are sums of cache
//     rows; V [kvH][cap][hd]), grown in the length buckets of capFor, and a step attends over that row's
//     own positions only, so rows of different lengths cost what they hold, and rows left out of a step
//     cost nothing;
//   - keys and values are written in place; a prefill copies the prompt's cache into every row;
//   - the last layer of a prefill computes keys and values for every prompt token, and the rest only for
//     the token whose logits are returned.
//
// Sums run in a different order than the graphs', so logits differ in the last bits (≤ 4e-6 on the embedded
// model, TestCPUMatchesGoMLX); both engines pass the same tests against the numpy reference (≤ 1e-4). The
// weights take what GoMLX's float32 weights take; the caches grow as the rows do, to at most
// 2·L·B·kvH·hd·S·4 bytes. Products of at least 2^22 multiply-adds (2^19 for a single row, which is bound by
// reading the weights) split their columns among GOMAXPROCS goroutines. bf16 is GoMLX's only ("cpu" with DType "bf16" is an error). The engine reuses the
// activations of a prefill and the cache of the prompt remembered before the last one, because fresh
// memory costs a page fault per 4 KiB (18 µs each on this project's VMs: more than a prefill's arithmetic).
package llama
