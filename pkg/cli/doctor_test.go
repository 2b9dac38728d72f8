package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/llama"
)

func TestDoctorPureGo(t *testing.T) {
	t.Setenv("GOMLX_BACKEND", "go")
	var out, errb bytes.Buffer
	if code := runDoctor([]string{"--batch", "4", "--seq", "128"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{`backend: "go"`, "GPU: none", "590464 parameters", "running in F32", "memory for 4 rows × 128 positions", "ready"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestDoctorCPU: the cpu engine needs no GoMLX backend; doctor names its kernels, and with bf16 counts its
// caches in float32.
func TestDoctorCPU(t *testing.T) {
	t.Setenv("GOMLX_BACKEND", "cpu")
	var out, errb bytes.Buffer
	if code := runDoctor([]string{"--batch", "4", "--seq", "128"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{`backend: "cpu"`, "cpu engine kernels: " + llama.CPUKernels(), "GPU: none", "running in F32", "ready"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	errb.Reset()
	if code := runDoctor([]string{"--dtype", "bf16", "--batch", "4", "--seq", "128"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "running in BF16") {
		t.Errorf("bf16 on the cpu engine: exit %d, stderr %q\n%s", code, errb.String(), out.String())
	}
}

func TestDoctorMissing(t *testing.T) {
	for _, tc := range []struct{ backend, model, want string }{
		{"xla:/nonexistent/xla_cuda_plugin.so", "", "PJRT plugin /nonexistent/xla_cuda_plugin.so: not a file"},
		{"xla:cuda", "", `no PJRT plugin "cuda"`},
		{"go", t.TempDir(), "config.json"},
	} {
		t.Setenv("GOMLX_BACKEND", tc.backend)
		t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", t.TempDir())
		t.Setenv("LD_LIBRARY_PATH", "")
		t.Setenv("HOME", t.TempDir())
		var out, errb bytes.Buffer
		args := []string{}
		if tc.model != "" {
			args = append(args, "--model", tc.model)
		}
		if code := runDoctor(args, &out, &errb); code != 1 {
			t.Errorf("%s: exit %d, want 1\n%s", tc.backend, code, out.String())
		}
		if !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%s: stderr lacks %q:\n%s", tc.backend, tc.want, errb.String())
		}
	}
}

// gasp doctor says which kernels run and, in a build without the SIMD
// experiment on a CPU that has AVX2 or AVX-512, what such a build would run.
func TestDoctorKernelsNote(t *testing.T) {
	for _, c := range []struct {
		have, simd string
		want       []string
	}{
		{"AVX-512", "AVX-512", []string{"AVX-512"}},
		{"portable Go", "portable Go", []string{"portable Go"}},
		{"portable Go", "AVX-512", []string{"portable Go; this CPU has AVX-512", "GOEXPERIMENT=simd", "BENCHMARKS.md"}},
		{"portable Go", "AVX2", []string{"runs AVX2 kernels"}},
	} {
		got := cpuKernelsNote(c.have, c.simd)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("cpuKernelsNote(%q, %q) = %q, want it to say %q", c.have, c.simd, got, w)
			}
		}
		if c.have == c.simd && got != c.have {
			t.Errorf("cpuKernelsNote(%q, %q) = %q: nothing to gain, nothing to say", c.have, c.simd, got)
		}
	}
	if k := llama.SIMDKernels(); k != "AVX-512" && k != "AVX2" && k != "portable Go" {
		t.Errorf("SIMDKernels() = %q", k)
	}
}
