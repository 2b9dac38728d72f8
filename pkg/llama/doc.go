// Package llama runs Llama-3.x, Qwen2/Qwen2.5 and Qwen3 language models (Hugging Face LlamaForCausalLM,
// Qwen2ForCausalLM and Qwen3ForCausalLM checkpoints) with its own CPU engine or with GoMLX, with a batched
// decoder over key/value caches whose rows can be cut back and resumed: what Metropolis–Hastings resampling
// of a suffix needs.
//
// The architecture is transformers' LlamaForCausalLM: token embedding; per layer RMSNorm, grouped-query
// attention with rotary position embeddings ("rotate_half"; "llama3" or "linear" frequency scaling), RMSNorm
// and a SwiGLU MLP, each with a residual connection; a final RMSNorm and the output projection, possibly tied
// to the embedding. Qwen2 adds q, k and v biases, and Qwen3 an RMSNorm of each query and key head before the
// rotation (Config.ModelType). Config reads config.json and refuses, naming the field, what the code does not
// implement (sliding windows, other rope scalings such as yarn, mixtures of experts, ...). Weights come from
// safetensors through package hf, by their Hugging Face names, each shape checked against the configuration.
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
// Each row has its own length (Session.Len). Step computes the listed rows in one batched execution and leaves
// the others untouched; Truncate only resets a row's length, so the cached keys and values of the kept prefix
// are reused. Model.Forward computes a whole sequence's logits without a cache. The tests check the cached
// decoder against Forward, and both against an independent numpy implementation of each family
// (testdata/make_reference.py) on random checkpoints (RandomWeights, WriteCheckpoint).
//
// # Engines
//
// Options.Backend, else $GOMLX_BACKEND, else DefaultBackend() chooses the engine:
//
//   - "cpu" (CPUBackend, the default in every build): the model in float32 with the kernels of
//     internal/kernels, AVX-512 or AVX2 in binaries built with GOEXPERIMENT=simd, portable Go otherwise. It
//     computes what the graphs compute but skips what they cannot: each row attends over its own positions
//     only, caches grow per row and are written in place (cpu.go).
//   - a GoMLX backend: "go", the pure-Go one linked by default, or XLA/PJRT ("xla:cuda", "xla:cpu") in a build
//     with -tags xla (environment.md). Every graph has a fixed shape, so a compiled decode step serves every
//     step of a session whatever its rows' lengths; caches hold a length bucket and grow on the device, never
//     crossing to the host (graph.go). BackendConfig adds "ops_sequential" to pure-Go configurations, whose
//     parallel op scheduler can deadlock; XLAFlags turns XLA's command buffers off on CUDA, where they made
//     a decode step slower.
//
// A binary built with GOEXPERIMENT=simd should run with GODEBUG=cpu.fma=off, which keeps math.Exp fast next to
// the SIMD kernels (scripts/goenv.sh sets both; cmd/gasp sets the second for itself).
//
// # Dtypes and memory
//
// Options.DType chooses the dtype of the weight matrices and the KV caches: hf.F32, hf.BF16, or "" (auto, the
// default; ParseDType reads a command line's "f32", "bf16", "auto"): the checkpoint's dtype on XLA, so that an
// 8B bf16 checkpoint takes 16 GB rather than 32, and f32 on the CPU (ResolveDType). On XLA, bf16 weights are
// read straight from a BF16 checkpoint's bytes. The cpu engine's bf16 keeps only its weight matrices and
// embedding in bfloat16 (an 8B model in 16 GB of RAM) and computes in float32, caches included; with
// Options.BF16Products it multiplies bfloat16 pairs instead, the activations rounded where they enter a
// product, as llama.cpp does (about twice as fast batched on a CPU with AVX512-BF16).
// Activations, norms, softmax and logits are float32 everywhere; everything the samplers compute from the
// logits is float64 on the host. EstimateMemory gives a session's peak device memory, EstimateBackendMemory
// the cpu engine's ("gasp doctor" prints it for a model).
//
// Speeds are in the repository's BENCHMARKS.md ("gasp bench lm" measures them).
package llama
