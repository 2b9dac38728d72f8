package llama

import (
	"os"
	"testing"
)

func TestXLAFlags(t *testing.T) {
	const off = "--xla_gpu_enable_command_buffer="
	for _, c := range []struct{ config, flags, want string }{
		{"xla:cuda", "", off},
		{"xla:cuda,tf32=false", "--xla_gpu_cuda_data_dir=/x", "--xla_gpu_cuda_data_dir=/x " + off},
		{"xla:/opt/jax_plugins/xla_cuda13/xla_cuda_plugin.so,preallocate=false", "", off},
		{"xla:CUDA", "", off},
		{"stablehlo:cuda", "", off},
		// The user's own choice stays, whatever it is.
		{"xla:cuda", "--xla_gpu_enable_command_buffer=FUSION", "--xla_gpu_enable_command_buffer=FUSION"},
		{"xla:cuda", off, off},
		// Not CUDA: unchanged, so that no plugin is handed a flag it might not know.
		{"xla:cpu", "", ""},
		{"xla", "--a", "--a"},
		{"xla:cpu,cuda_like=1", "", ""},
		{"go", "", ""},
		{"cpu", "", ""},
		{"", "", ""},
	} {
		if got := XLAFlags(c.config, c.flags); got != c.want {
			t.Errorf("XLAFlags(%q, %q) = %q, want %q", c.config, c.flags, got, c.want)
		}
	}
}

func TestNewBackendLeavesXLAFlagsOfOtherBackends(t *testing.T) {
	t.Setenv(XLAFlagsEnv, "--xla_dump_to=/tmp/x")
	b, err := NewBackend("go")
	if err != nil {
		t.Fatal(err)
	}
	b.Finalize()
	if got := os.Getenv(XLAFlagsEnv); got != "--xla_dump_to=/tmp/x" {
		t.Errorf("XLA_FLAGS = %q after NewBackend(\"go\")", got)
	}
}

func TestSetXLAFlags(t *testing.T) {
	t.Setenv(XLAFlagsEnv, "--xla_dump_to=/tmp/x")
	if err := setXLAFlags("xla:cuda"); err != nil {
		t.Fatal(err)
	}
	if got, want := os.Getenv(XLAFlagsEnv), "--xla_dump_to=/tmp/x --xla_gpu_enable_command_buffer="; got != want {
		t.Errorf("XLA_FLAGS = %q, want %q", got, want)
	}
}
