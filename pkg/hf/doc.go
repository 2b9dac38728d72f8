// Package hf gets a model's files, from a local directory or the Hugging Face hub, and reads and writes
// safetensors checkpoints.
//
// # Model files
//
// Resolve turns a model reference into a local directory: a directory is used as is, and a hub id such as
// "meta-llama/Llama-3.2-1B-Instruct" is downloaded into the hub cache, shared with Python's huggingface_hub
// (models--org--name/{blobs,snapshots,refs}), and resolved to its snapshot directory:
//
//	dir, err := hf.Resolve(ctx, "meta-llama/Llama-3.2-1B-Instruct", hf.Options{})
//	var cfg struct{ HiddenSize int `json:"hidden_size"` }
//	err = hf.ReadJSON(dir, "config.json", &cfg)
//	ckpt, err := hf.OpenCheckpoint(dir)
//	defer ckpt.Close()
//	w, err := ckpt.Float32("model.embed_tokens.weight")
//
// By default Resolve fetches what a model needs: config.json, tokenizer.json, the optional
// generation_config.json and tokenizer_config.json, and model.safetensors or the sharded
// model.safetensors.index.json with its shards; Options.Files chooses other files. It honours the environment
// variables of huggingface_hub: HF_TOKEN (else the token file $HF_HOME/token that `huggingface-cli login`
// writes), HF_ENDPOINT, HF_HOME, HF_HUB_CACHE and HF_HUB_OFFLINE. Gated models (all Llama models) need a token
// of an account that accepted the model's license.
//
// Downloads use github.com/gomlx/go-huggingface (authentication, endpoint, the cache layout). Resolve itself
// asks the hub which commit a revision names and which files it has, so that errors say what went wrong
// (ErrNotFound, ErrUnauthorized), records refs/<revision> as huggingface_hub does, and resolves offline from the
// cache (ErrNotCached when something is missing), which go-huggingface cannot: it always asks the hub first.
//
// # Safetensors
//
// A safetensors file is an 8-byte little-endian header length N, N bytes of JSON header mapping each tensor
// name to its dtype, shape and data_offsets [begin, end) in the data buffer that follows (plus an optional
// "__metadata__" object of strings), then the data buffer. A sharded checkpoint adds
// model.safetensors.index.json, whose weight_map gives each tensor's shard file.
//
// OpenSafetensors and OpenCheckpoint read and validate only the headers: every tensor's byte size must match its
// shape and dtype, and the tensors must tile the data buffer exactly, with no gap, overlap or truncation (the
// reference implementation's rules), and an index must agree with its shards. Tensor data is read on demand
// (ReadAt), so opening the 16 GB of an 8B-parameter model costs a few kilobytes of reading. Float32 converts
// F32, BF16 and F16 tensors; BFloat16 returns bfloat16 bits (a BF16 tensor as stored, with no float32 copy);
// Bytes returns any tensor's raw bytes. Malformed files give a *FormatError naming
// the file and the tensor; nothing panics on any input (see FuzzOpenSafetensors).
//
// WriteSafetensors writes a file crash-safely (temporary file, sync, rename) and deterministically, laid out
// byte for byte as huggingface/safetensors lays it out. Float32Tensor, BFloat16Tensor and Float16Tensor build
// tensors from float32 values; BFloat16 rounds to nearest even, as PyTorch does.
//
// The reader and writer are written here rather than taken from github.com/nlpodyssey/safetensors (evaluated
// at v0.0.0-20250209183917-bfb01cc25f7c): that package deserializes a whole file held in memory ([]byte, so an
// 8B model needs 16 GB of RAM or a hand-made mmap), knows nothing of sharded checkpoints, has no BF16/F16
// conversion and no FP8 dtypes, reports layout errors without naming the file or, for offsets, the tensor, lets
// a duplicated tensor name pass silently, and writes non-atomically. The format itself is small.
//
// # Configuration
//
// ReadJSON reads a JSON file of a model directory, with the file name, line and column in its errors.
package hf
