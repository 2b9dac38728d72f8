package llama

import (
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/hf"
)

// TestParseDType checks the command line's spellings of a dtype, and that
// any other is an error naming it.
func TestParseDType(t *testing.T) {
	for s, want := range map[string]hf.DType{
		"f32": hf.F32, "F32": hf.F32, "float32": hf.F32,
		"bf16": hf.BF16, "BFloat16": hf.BF16,
		"auto": "", "": "",
	} {
		if got, err := ParseDType(s); err != nil || got != want {
			t.Errorf("ParseDType(%q) = %q, %v; want %q", s, got, err, want)
		}
	}
	for _, s := range []string{"f16", "float64", "int8"} {
		if _, err := ParseDType(s); err == nil || !strings.Contains(err.Error(), `"`+s+`"`) {
			t.Errorf("ParseDType(%q): %v", s, err)
		}
	}
}

// TestResolveDType checks the dtype a model takes for each backend and
// checkpoint: auto follows a bf16 checkpoint on XLA only, the cpu engine
// takes bf16 when asked, and an unparsed spelling is an error.
func TestResolveDType(t *testing.T) {
	for _, c := range []struct {
		want          hf.DType
		backend       string
		ckpt, resolve hf.DType
		err           string
	}{
		{hf.F32, "xla:cuda", hf.BF16, hf.F32, ""},
		{hf.BF16, "go", hf.F32, hf.BF16, ""},
		{hf.BF16, CPUBackend, hf.F32, hf.BF16, ""},
		{"", "xla:cuda", hf.BF16, hf.BF16, ""},
		{"", "xla:cuda", hf.F32, hf.F32, ""},
		{"", "xla:cuda", "", hf.F32, ""},
		{"", "go:ops_sequential", hf.BF16, hf.F32, ""},
		{"", CPUBackend, hf.BF16, hf.F32, ""},
		{"f32", CPUBackend, "", "", `"f32"`},
		{hf.F16, "go", "", "", `"F16"`},
	} {
		got, err := ResolveDType(c.want, c.backend, c.ckpt)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ResolveDType(%q, %q, %q): %v, want an error with %s", c.want, c.backend, c.ckpt, err, c.err)
			}
			continue
		}
		if err != nil || got != c.resolve {
			t.Errorf("ResolveDType(%q, %q, %q) = %q, %v; want %q", c.want, c.backend, c.ckpt, got, err, c.resolve)
		}
	}
}
