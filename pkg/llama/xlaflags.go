package llama

import (
	"os"
	"strings"
)

// XLAFlagsEnv is the environment variable an XLA plugin reads its flags from, once, before its first compile.
const XLAFlagsEnv = "XLA_FLAGS"

// commandBufferFlag chooses which of a step's operations XLA on CUDA records into command buffers (CUDA
// graphs) and replays with one launch; the empty list runs them one launch each.
const commandBufferFlag = "--xla_gpu_enable_command_buffer"

// XLAFlags returns the XLA_FLAGS that a GoMLX backend configuration should run with, given their value now:
// for a CUDA plugin ("xla:cuda", "stablehlo:cuda", or a plugin path naming cuda, as jax's xla_cuda_plugin.so
// does) it adds "--xla_gpu_enable_command_buffer=" (command buffers off) unless flags set that flag already;
// anything else is returned unchanged. NewBackend, and so every model, applies it before the plugin compiles.
//
// Why: with XLA's command buffers on, an 8B model's batch-1 decode step on an H200 ran 20–25 % slower than
// with its kernels launched one by one (section 10 of analysis/gpu/README.md), probably because a step's
// buffers are new on every execution (go-xla donates none), so each replay first updates the graph. To run
// with XLA's own choice, set the flag in XLA_FLAGS yourself, e.g.
// "--xla_gpu_enable_command_buffer=FUSION,CUBLAS,CUBLASLT,CUSTOM_CALL,CUDNN".
func XLAFlags(config, flags string) string {
	name, rest, _ := strings.Cut(config, ":")
	plugin, _, _ := strings.Cut(rest, ",")
	if (name != "xla" && name != "stablehlo") || !strings.Contains(strings.ToLower(plugin), "cuda") || strings.Contains(flags, commandBufferFlag) {
		return flags
	}
	if flags == "" {
		return commandBufferFlag + "="
	}
	return flags + " " + commandBufferFlag + "="
}

// setXLAFlags sets XLA_FLAGS to what XLAFlags returns for config, when that differs.
func setXLAFlags(config string) error {
	now := os.Getenv(XLAFlagsEnv)
	if want := XLAFlags(config, now); want != now {
		return os.Setenv(XLAFlagsEnv, want)
	}
	return nil
}
