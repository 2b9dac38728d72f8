package hf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/x448/float16"
)

// le32 returns the little-endian bytes of float32 values.
func le32(vs ...float32) []byte {
	b := make([]byte, 0, 4*len(vs))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

// rawFile returns a safetensors file made of the 8-byte length of header, header, and data.
func rawFile(header string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	b = append(b, header...)
	return append(b, data...)
}

func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReferenceLayout checks WriteSafetensors byte for byte against files laid out by the reference
// implementation (huggingface/safetensors' serialization tests).
func TestReferenceLayout(t *testing.T) {
	tests := []struct {
		name     string
		tensors  []Tensor
		metadata map[string]string
		want     []byte
	}{
		{
			name:    "one tensor, header already aligned",
			tensors: []Tensor{Float32Tensor("attn.0", []int{1, 2, 3}, []float32{0, 1, 2, 3, 4, 5})},
			want: rawFile(`{"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}}`,
				le32(0, 1, 2, 3, 4, 5)),
		},
		{
			name:    "one tensor, header padded",
			tensors: []Tensor{Float32Tensor("attn0", []int{1, 1, 2, 3}, []float32{0, 1, 2, 3, 4, 5})},
			want: rawFile(`{"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}}       `,
				le32(0, 1, 2, 3, 4, 5)),
		},
		{
			name: "empty",
			want: rawFile(`{}      `, nil),
		},
		{
			name:     "empty with metadata",
			metadata: map[string]string{"framework": "pt"},
			want:     rawFile(`{"__metadata__":{"framework":"pt"}}     `, nil),
		},
		{
			name: "dtype alignment order then names, metadata first and sorted",
			tensors: []Tensor{
				{Name: "b", DType: U8, Shape: []int{3}, Data: []byte{1, 2, 3}},
				BFloat16Tensor("a", []int{1}, []float32{1}),
				Float32Tensor("z", []int{}, []float32{2}),
				{Name: "i", DType: I64, Shape: []int{1}, Data: []byte{7, 0, 0, 0, 0, 0, 0, 0}},
				Float32Tensor("c<&>", []int{0, 2}, nil),
			},
			metadata: map[string]string{"format": "pt", "a": "<x>"},
			want: rawFile(`{"__metadata__":{"a":"<x>","format":"pt"},`+
				`"i":{"dtype":"I64","shape":[1],"data_offsets":[0,8]},`+
				`"c<&>":{"dtype":"F32","shape":[0,2],"data_offsets":[8,8]},`+
				`"z":{"dtype":"F32","shape":[],"data_offsets":[8,12]},`+
				`"a":{"dtype":"BF16","shape":[1],"data_offsets":[12,14]},`+
				`"b":{"dtype":"U8","shape":[3],"data_offsets":[14,17]}}`+"    ",
				append(append(append([]byte{7, 0, 0, 0, 0, 0, 0, 0}, le32(2)...), 0x80, 0x3f), 1, 2, 3)),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "model.safetensors")
			if err := WriteSafetensors(p, tt.tensors, tt.metadata); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("wrote\n%q\nwant\n%q", got, tt.want)
			}
			c := mustOpen(t, OpenSafetensors, p)
			if len(c.Tensors()) != len(tt.tensors) {
				t.Errorf("read %d tensors, wrote %d", len(c.Tensors()), len(tt.tensors))
			}
			for _, want := range tt.tensors {
				got, err := c.Bytes(want.Name)
				if err != nil || !bytes.Equal(got, want.Data) {
					t.Errorf("Bytes(%q) = %v, %v; want %v", want.Name, got, err, want.Data)
				}
			}
		})
	}
}

// TestCraftedFile reads files written byte by byte from the format's description, with tensors listed out of
// order in the header and a header padded with spaces.
func TestCraftedFile(t *testing.T) {
	dir := t.TempDir()
	data := le32(1.5, -2, 0.25)                             // "w": F32 [3]         at [0, 12)
	data = append(data, 0xc0, 0x3f, 0x80, 0xbf)             // "b": BF16 [2] = 1.5, -1   at [12, 16)
	data = append(data, 0x00, 0x3c, 0xff, 0x7b)             // "h": F16 [1,2] = 1, 65504 at [16, 20)
	data = append(data, 5, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff) // "i": I32 [2] = 5, -2  at [20, 28)
	header := `{"i":{"dtype":"I32","shape":[2],"data_offsets":[20,28]},` +
		`"__metadata__":{"format":"pt","note":"hand made"},` +
		`"h":{"shape":[1,2],"data_offsets":[16,20],"dtype":"F16"},` +
		`"w":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},` +
		`"b":{"dtype":"BF16","shape":[2],"data_offsets":[12,16]}}   `
	p := writeFile(t, dir, "crafted.safetensors", rawFile(header, data))
	c := mustOpen(t, OpenSafetensors, p)

	if names, want := tensorNames(c), []string{"b", "h", "i", "w"}; !slices.Equal(names, want) {
		t.Errorf("Tensors() names = %v, want %v", names, want)
	}
	ti, ok := c.Info("h")
	want := TensorInfo{Name: "h", DType: F16, Shape: []int{1, 2}, Offset: 8 + int64(len(header)) + 16, Size: 4, File: p}
	if !ok || fmt.Sprint(ti) != fmt.Sprint(want) {
		t.Errorf("Info(h) = %+v, %v; want %+v", ti, ok, want)
	}
	if _, ok := c.Info("nope"); ok {
		t.Error("Info(nope) found")
	}
	if md := c.Metadata(); md["format"] != "pt" || md["note"] != "hand made" || len(md) != 2 {
		t.Errorf("Metadata() = %v", md)
	}
	for name, want := range map[string][]float32{
		"w": {1.5, -2, 0.25},
		"b": {1.5, -1},
		"h": {1, 65504},
	} {
		got, err := c.Float32(name)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("Float32(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := c.Float32("i"); err == nil || !strings.Contains(err.Error(), "unsupported dtype I32") {
		t.Errorf("Float32(i) error = %v, want unsupported dtype", err)
	}
	// BFloat16: BF16 bits as stored, F32 and F16 rounded to nearest even (F16's 65504 becomes 65536).
	for _, name := range []string{"w", "b", "h"} {
		f, _ := c.Float32(name)
		got, err := c.BFloat16(name)
		if err != nil || len(got) != len(f) {
			t.Fatalf("BFloat16(%q) = %v, %v", name, got, err)
		}
		for i, v := range f {
			if got[i] != BFloat16(v) {
				t.Errorf("BFloat16(%q)[%d] = %#04x, want %#04x (from %g)", name, i, got[i], BFloat16(v), v)
			}
		}
	}
	if got, _ := c.BFloat16("h"); BFloat16ToFloat32(got[1]) != 65536 {
		t.Errorf("BFloat16(h)[1] = %g, want 65536", BFloat16ToFloat32(got[1]))
	}
	if _, err := c.BFloat16("i"); err == nil || !strings.Contains(err.Error(), "unsupported dtype I32") {
		t.Errorf("BFloat16(i) error = %v, want unsupported dtype", err)
	}
	if _, err := c.BFloat16("nope"); err == nil || !strings.Contains(err.Error(), `no tensor "nope"`) {
		t.Errorf("BFloat16(nope) error = %v", err)
	}
	if b, err := c.Bytes("i"); err != nil || int32(binary.LittleEndian.Uint32(b[4:])) != -2 {
		t.Errorf("Bytes(i) = %v, %v", b, err)
	}
	if _, err := c.Float32("nope"); err == nil || !strings.Contains(err.Error(), `no tensor "nope"`) {
		t.Errorf("Float32(nope) error = %v", err)
	}

	// The file of huggingface/safetensors' Python tests: I32 zeros, header not padded.
	p = writeFile(t, dir, "python.safetensors",
		rawFile(`{"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}}`, make([]byte, 16)))
	c2, err := OpenSafetensors(p)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if ti, ok := c2.Info("test"); !ok || ti.Offset != 8+60 || ti.Size != 16 {
		t.Errorf("Info(test) = %+v", ti)
	}
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	f32 := make([]float32, 2*3*4)
	for i := range f32 {
		f32[i] = float32(rng.NormFloat64())
	}
	// Values that BF16 and F16 represent exactly.
	bf := []float32{0, 1, -1.5, 3.140625, 1 << 100, -1.0 / (1 << 120), float32(math.Inf(1)), 0.0078125, 255, -65536}
	f16 := []float32{0, 1, -1.5, 65504, -65504, 1.0 / (1 << 14), 1.0 / (1 << 24), 3.140625, 0.099975586, float32(math.Inf(-1))}
	tensors := []Tensor{
		Float32Tensor("model.layers.0.w", []int{2, 3, 4}, f32),
		BFloat16Tensor("model.layers.0.bf", []int{2, 5}, bf),
		Float16Tensor("model.h", []int{10}, f16),
		Float32Tensor("scalar", nil, []float32{42}),
		BFloat16Tensor("empty", []int{3, 0}, nil),
		{Name: "ids", DType: I64, Shape: []int{2}, Data: make([]byte, 16)},
	}
	md := map[string]string{"format": "pt", "source": "test"}
	dir := t.TempDir()
	p := filepath.Join(dir, "model.safetensors")
	if err := WriteSafetensors(p, tensors, md); err != nil {
		t.Fatal(err)
	}
	// Deterministic: the same tensors in another order give the same bytes.
	first, _ := os.ReadFile(p)
	shuffled := slices.Clone(tensors)
	slices.Reverse(shuffled)
	if err := WriteSafetensors(p, shuffled, md); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(p)
	if !bytes.Equal(first, second) {
		t.Error("output depends on the order of the tensors")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}

	c := mustOpen(t, OpenCheckpoint, dir)
	if !maps(c.Metadata(), md) {
		t.Errorf("Metadata() = %v, want %v", c.Metadata(), md)
	}
	for _, want := range tensors {
		ti, ok := c.Info(want.Name)
		if !ok || ti.DType != want.DType || !slices.Equal(ti.Shape, want.Shape) {
			t.Errorf("Info(%q) = %+v, %v", want.Name, ti, ok)
		}
		if elem := int64(ti.DType.Bits() / 8); ti.Offset%elem != 0 {
			t.Errorf("tensor %q at offset %d is not aligned to %d bytes", want.Name, ti.Offset, elem)
		}
	}
	check := func(name string, want []float32) {
		t.Helper()
		got, err := c.Float32(name)
		if err != nil {
			t.Fatalf("Float32(%q): %v", name, err)
		}
		if len(got) != len(want) {
			t.Fatalf("Float32(%q) has %d values, want %d", name, len(got), len(want))
		}
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Errorf("Float32(%q)[%d] = %v, want %v", name, i, got[i], want[i])
			}
		}
	}
	check("model.layers.0.w", f32)
	check("model.layers.0.bf", bf)
	check("model.h", f16)
	check("scalar", []float32{42})
	check("empty", []float32{})
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestLargeTensorChunks reads a tensor larger than the conversion chunk.
func TestLargeTensorChunks(t *testing.T) {
	n := 1<<18*2 + 123
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = float32(i%256 - 128)
	}
	p := filepath.Join(t.TempDir(), "big.safetensors")
	if err := WriteSafetensors(p, []Tensor{BFloat16Tensor("x", []int{n}, vals)}, nil); err != nil {
		t.Fatal(err)
	}
	c := mustOpen(t, OpenSafetensors, p)
	got, err := c.Float32("x")
	if err != nil || !slices.Equal(got, vals) {
		t.Fatalf("Float32 mismatch (err %v)", err)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r *os.File
	n int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

func TestOpenReadsHeaderOnly(t *testing.T) {
	p := filepath.Join(t.TempDir(), "model.safetensors")
	if err := WriteSafetensors(p, []Tensor{Float32Tensor("x", []int{1 << 20}, make([]float32, 1<<20))}, nil); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	cr := &countingReader{r: f}
	if _, err := parseSafetensors(cr, fi.Size(), p); err != nil {
		t.Fatal(err)
	}
	if cr.n > 1024 {
		t.Errorf("opening read %d bytes of a %d-byte file", cr.n, fi.Size())
	}
}

func TestBFloat16Rounding(t *testing.T) {
	f := func(bits uint32) float32 { return math.Float32frombits(bits) }
	for _, tt := range []struct {
		in   float32
		want uint16
	}{
		{1, 0x3f80},
		{-2, 0xc000},
		{f(0x3f808000), 0x3f80}, // halfway between 0x3f80 and 0x3f81: to even
		{f(0x3f818000), 0x3f82}, // halfway between 0x3f81 and 0x3f82: to even
		{f(0x3f808001), 0x3f81}, // above halfway
		{f(0x3f807fff), 0x3f80}, // below halfway
		{f(0xbf818000), 0xbf82}, // negative tie
		{math.MaxFloat32, 0x7f80},
		{-math.MaxFloat32, 0xff80},
		{f(0x7f7f7fff), 0x7f7f}, // largest value that does not round to Inf
		{float32(math.Inf(1)), 0x7f80},
		{f(0x80000000), 0x8000},
		{f(0x00000001), 0x0000}, // smallest subnormal rounds to zero
		{f(0x00018000), 0x0002}, // subnormal tie to even
	} {
		if got := BFloat16(tt.in); got != tt.want {
			t.Errorf("BFloat16(%g = %#08x) = %#04x, want %#04x", tt.in, math.Float32bits(tt.in), got, tt.want)
		}
	}
	for _, nan := range []uint32{0x7fc00000, 0x7f800001, 0xff800001, 0x7f810000} {
		if got := BFloat16ToFloat32(BFloat16(f(nan))); !math.IsNaN(float64(got)) {
			t.Errorf("BFloat16(NaN %#08x) = %#04x, not a NaN", nan, BFloat16(f(nan)))
		}
	}
	// Against an exact reference: the nearer of the two neighbouring bfloat16 values, ties to even.
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		bits := rng.Uint32()
		if bits&0x7f800000 == 0x7f800000 {
			continue // Inf and NaN
		}
		x := f(bits)
		lo := uint16(bits >> 16) // truncation: toward zero
		hi := lo + 1             // away from zero (may be Inf)
		dlo := math.Abs(float64(x) - float64(BFloat16ToFloat32(lo)))
		dhi := math.Abs(float64(x) - float64(BFloat16ToFloat32(hi)))
		if hi&0x7fff == 0x7f80 { // Inf: compare with the next finite step instead
			dhi = math.Abs(math.Abs(float64(x)) - math.Pow(2, 128))
		}
		want := lo
		if dhi < dlo || dhi == dlo && lo&1 == 1 {
			want = hi
		}
		if got := BFloat16(x); got != want {
			t.Fatalf("BFloat16(%#08x) = %#04x, want %#04x", bits, got, want)
		}
	}
}

func TestFloat16Exhaustive(t *testing.T) {
	// Every finite F16 value survives float32 → F16 → float32.
	vals := make([]float32, 0, 1<<16)
	for b := range 1 << 16 {
		h := float16.Frombits(uint16(b))
		if h.IsNaN() {
			continue
		}
		vals = append(vals, h.Float32())
	}
	p := filepath.Join(t.TempDir(), "f16.safetensors")
	if err := WriteSafetensors(p, []Tensor{Float16Tensor("h", []int{len(vals)}, vals)}, nil); err != nil {
		t.Fatal(err)
	}
	c := mustOpen(t, OpenSafetensors, p)
	got, err := c.Float32("h")
	if err != nil {
		t.Fatal(err)
	}
	for i := range vals {
		if math.Float32bits(got[i]) != math.Float32bits(vals[i]) {
			t.Fatalf("value %d: %v became %v", i, vals[i], got[i])
		}
	}
	// F16 rounding on write is round to nearest even: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10.
	if h := Float16Tensor("x", []int{1}, []float32{1 + 1.0/(1<<11)}); binary.LittleEndian.Uint16(h.Data) != 0x3c00 {
		t.Errorf("F16(1+2^-11) = %#04x, want 0x3c00", binary.LittleEndian.Uint16(h.Data))
	}
}

func TestCorruptFiles(t *testing.T) {
	good := `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}`
	huge := binary.LittleEndian.AppendUint64(nil, 200_000_000)
	tests := []struct {
		name   string
		file   []byte
		tensor string // the tensor the error names, if any
		want   string
	}{
		{"too short", []byte{1, 2, 3}, "", "file too short"},
		{"header longer than file", rawFile(good, make([]byte, 12))[:50], "", fmt.Sprintf("header length %d larger than the file (50 bytes", len(good))},
		{"absurd header length", append(huge, "{}"...), "", "header length 200000000 exceeds the limit"},
		{"malformed JSON", rawFile(`{"a":{"dtype":"F32",}`, nil), "", "malformed header JSON"},
		{"not an object", rawFile(`[1,2]`, nil), "", "does not start with '{'"},
		{"trailing garbage", rawFile(`{} {}`, nil), "", "data after the header object"},
		{"invalid UTF-8", rawFile("{\"\xff\":1}", nil), "", "not valid UTF-8"},
		{"unknown dtype", rawFile(`{"a":{"dtype":"Q8","shape":[1],"data_offsets":[0,1]}}`, make([]byte, 1)), "a", `unknown dtype "Q8"`},
		{"missing field", rawFile(`{"a":{"dtype":"F32","shape":[1]}}`, make([]byte, 4)), "a", "missing data_offsets"},
		{"negative dimension", rawFile(`{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}`, make([]byte, 4)), "a", "invalid dimension -1"},
		{"fractional offset", rawFile(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4.5]}}`, make([]byte, 4)), "a", "malformed data_offsets"},
		{"reversed offsets", rawFile(`{"a":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}}`, make([]byte, 4)), "a", "invalid data_offsets [4, 0]"},
		{"size mismatch", rawFile(`{"a":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,24]}}`, make([]byte, 24)), "a", "shape [2 3] of BF16 needs 12 bytes but data_offsets [0, 24] hold 24"},
		// A dtype no conversion reads, laid out as another (F32): the
		// dtype is named first, then the sizes (issue 33 F43).
		{"F8 laid out as F32", rawFile(`{"a":{"dtype":"F8_E4M3","shape":[2,3],"data_offsets":[0,24]}}`, make([]byte, 24)), "a",
			"unsupported dtype F8_E4M3 (gasp converts F32, BF16 and F16 only): shape [2 3] of F8_E4M3 needs 6 bytes but data_offsets [0, 24] hold 24"},
		{"F8_E5M2 laid out as F16", rawFile(`{"a":{"dtype":"F8_E5M2","shape":[4],"data_offsets":[0,8]}}`, make([]byte, 8)), "a", "unsupported dtype F8_E5M2"},
		{"I64 laid out as F32", rawFile(`{"a":{"dtype":"I64","shape":[2],"data_offsets":[0,8]}}`, make([]byte, 8)), "a", "unsupported dtype I64"},
		{"shape overflow", rawFile(`{"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}}`, make([]byte, 4)), "a", "overflows"},
		{"out of bounds (truncated)", rawFile(good, make([]byte, 10)), "b", "data_offsets [8, 12] exceed the data buffer of 10 bytes (truncated file?)"},
		{"overlap", rawFile(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, make([]byte, 8)), "b", `data_offsets [4, 8] overlap tensor "a"`},
		{"gap", rawFile(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}`, make([]byte, 12)), "b", "gap of 4 bytes"},
		{"trailing bytes", rawFile(good, make([]byte, 16)), "", "data buffer has 16 bytes but the tensors cover only 12 (4 trailing bytes)"},
		{"duplicate tensor", rawFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, make([]byte, 2)), "a", "listed twice"},
		{"bad metadata", rawFile(`{"__metadata__":{"n":1}}`, nil), "", "malformed __metadata__"},
		{"entry not an object", rawFile(`{"a":[1]}`, nil), "a", "malformed entry"},
	}
	dir := t.TempDir()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, dir, fmt.Sprintf("bad%d.safetensors", i), tt.file)
			c, err := OpenSafetensors(p)
			if err == nil {
				c.Close()
				t.Fatalf("OpenSafetensors succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not contain %q and the file name", err, tt.want)
			}
			var fe *FormatError
			if !errors.As(err, &fe) || fe.File != p || fe.Tensor != tt.tensor {
				t.Errorf("error %#v: want a FormatError naming file %s and tensor %q", err, p, tt.tensor)
			}
		})
	}
	if _, err := OpenSafetensors(filepath.Join(dir, "missing.safetensors")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: error %v, want ErrNotExist", err)
	}
}

func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name    string
		tensors []Tensor
		want    string
	}{
		{"reserved", []Tensor{Float32Tensor("__metadata__", []int{1}, []float32{1})}, "reserved"},
		{"duplicate", []Tensor{Float32Tensor("a", []int{1}, []float32{1}), Float32Tensor("a", []int{1}, []float32{1})}, "given twice"},
		{"dtype", []Tensor{{Name: "a", DType: "F99", Shape: []int{1}, Data: []byte{0}}}, `unknown dtype "F99"`},
		{"size", []Tensor{Float32Tensor("a", []int{3}, []float32{1})}, "needs 12 bytes, data has 4"},
		{"negative", []Tensor{{Name: "a", DType: U8, Shape: []int{-1}}}, "negative dimension"},
		{"sub-byte", []Tensor{{Name: "a", DType: F4, Shape: []int{3}, Data: []byte{0, 0}}}, "whole number of bytes"},
	} {
		p := filepath.Join(dir, "out.safetensors")
		if err := WriteSafetensors(p, tt.tensors, nil); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: files left behind: %v", tt.name, entries)
		}
	}
	if err := WriteSafetensors(filepath.Join(dir, "no", "such", "dir.safetensors"), nil, nil); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

// writeSharded writes a sharded checkpoint into dir and returns the tensors by name.
func writeSharded(t *testing.T, dir string, index string) {
	t.Helper()
	if err := WriteSafetensors(filepath.Join(dir, "model-00001-of-00002.safetensors"), []Tensor{
		Float32Tensor("embed", []int{2, 2}, []float32{1, 2, 3, 4}),
		BFloat16Tensor("layers.0.w", []int{2}, []float32{0.5, -0.5}),
	}, map[string]string{"format": "pt"}); err != nil {
		t.Fatal(err)
	}
	if err := WriteSafetensors(filepath.Join(dir, "model-00002-of-00002.safetensors"), []Tensor{
		Float16Tensor("layers.1.w", []int{3}, []float32{1, 2, 3}),
	}, map[string]string{"format": "pt"}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, SafetensorsIndexFile, []byte(index))
}

// mustOpen returns open(path), closed when the test ends; it fails the test on an error.
func mustOpen(t *testing.T, open func(string) (*Checkpoint, error), path string) *Checkpoint {
	t.Helper()
	c, err := open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// tensorNames returns the names of c's tensors, in the order of Tensors.
func tensorNames(c *Checkpoint) []string {
	var names []string
	for _, ti := range c.Tensors() {
		names = append(names, ti.Name)
	}
	return names
}

const goodIndex = `{
  "metadata": {"total_size": 26, "format": "pt"},
  "weight_map": {
    "embed": "model-00001-of-00002.safetensors",
    "layers.0.w": "model-00001-of-00002.safetensors",
    "layers.1.w": "model-00002-of-00002.safetensors"
  }
}`

func TestSharded(t *testing.T) {
	dir := t.TempDir()
	writeSharded(t, dir, goodIndex)
	c := mustOpen(t, OpenCheckpoint, dir)
	if names, want := tensorNames(c), []string{"embed", "layers.0.w", "layers.1.w"}; !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	if ti, _ := c.Info("layers.1.w"); ti.File != filepath.Join(dir, "model-00002-of-00002.safetensors") {
		t.Errorf("layers.1.w in %s", ti.File)
	}
	for name, want := range map[string][]float32{"embed": {1, 2, 3, 4}, "layers.0.w": {0.5, -0.5}, "layers.1.w": {1, 2, 3}} {
		if got, err := c.Float32(name); err != nil || !slices.Equal(got, want) {
			t.Errorf("Float32(%s) = %v, %v; want %v", name, got, err, want)
		}
	}
	if md := c.Metadata(); md["total_size"] != "26" || md["format"] != "pt" {
		t.Errorf("Metadata() = %v", md)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Float32("embed"); err == nil {
		t.Error("Float32 after Close succeeded")
	}

	// A single model.safetensors is preferred to an index.
	if err := WriteSafetensors(filepath.Join(dir, SafetensorsFile), []Tensor{Float32Tensor("only", nil, []float32{1})}, nil); err != nil {
		t.Fatal(err)
	}
	c2, err := OpenCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if ts := c2.Tensors(); len(ts) != 1 || ts[0].Name != "only" {
		t.Errorf("with model.safetensors present: tensors %v", ts)
	}

	if _, err := OpenCheckpoint(t.TempDir()); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), SafetensorsIndexFile) {
		t.Errorf("empty dir: error %v", err)
	}
}

func TestShardedErrors(t *testing.T) {
	for _, tt := range []struct {
		name, index, want string
	}{
		{"missing shard", strings.Replace(goodIndex, `"layers.1.w": "model-00002-of-00002`, `"layers.1.w": "model-00003-of-00003`, 1),
			"index references missing shard model-00003-of-00003.safetensors"},
		{"tensor not in its shard", strings.Replace(goodIndex, `"layers.1.w": "model-00002-of-00002`, `"layers.1.w": "model-00001-of-00002`, 1),
			`tensor "layers.1.w": listed in the index for shard model-00001-of-00002.safetensors but not in that shard`},
		{"tensor in no shard", strings.Replace(goodIndex, `"embed":`, `"ghost": "model-00002-of-00002.safetensors", "embed":`, 1),
			`tensor "ghost": listed in the index for shard model-00002-of-00002.safetensors but not in that shard`},
		{"escaping shard name", strings.Replace(goodIndex, `"model-00002-of-00002.safetensors"`, `"../model-00002-of-00002.safetensors"`, 1),
			"invalid shard file name"},
		{"no weight map", `{"metadata": {}}`, "no weight_map"},
		{"syntax error", "{\n  \"weight_map\": {\n    \"a\": \"x\",\n  }\n}", SafetensorsIndexFile + ":4:3: invalid character '}'"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeSharded(t, dir, tt.index)
			c, err := OpenCheckpoint(dir)
			if err == nil {
				c.Close()
				t.Fatal("OpenCheckpoint succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
	// The same tensor in two shards.
	dir := t.TempDir()
	writeSharded(t, dir, goodIndex)
	if err := WriteSafetensors(filepath.Join(dir, "model-00002-of-00002.safetensors"), []Tensor{
		Float16Tensor("layers.1.w", []int{3}, []float32{1, 2, 3}),
		Float32Tensor("embed", []int{1}, []float32{1}),
	}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenCheckpoint(dir); err == nil || !strings.Contains(err.Error(), `tensor "embed": in two shards`) {
		t.Errorf("duplicate tensor: error %v", err)
	}
}

func TestReadJSON(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "ok.json", []byte(`{"hidden_size": 64, "name": "x"}`))
	writeFile(t, dir, "syntax.json", []byte("{\n  \"a\": 1,\n  \"b\": ]\n}"))
	writeFile(t, dir, "type.json", []byte("{\n  \"hidden_size\": \"big\"\n}"))
	type cfg struct {
		HiddenSize int    `json:"hidden_size"`
		Name       string `json:"name"`
	}
	var c cfg
	if err := ReadJSON(dir, "ok.json", &c); err != nil || c.HiddenSize != 64 || c.Name != "x" {
		t.Errorf("ReadJSON(ok) = %+v, %v", c, err)
	}
	err := ReadJSON(dir, "syntax.json", &c)
	if want := filepath.Join(dir, "syntax.json") + ":3:8: invalid character ']'"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("syntax error %v, want it to contain %q", err, want)
	}
	err = ReadJSON(dir, "type.json", &c)
	if want := filepath.Join(dir, "type.json") + ":2:"; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "hidden_size") {
		t.Errorf("type error %v, want it to contain %q and the field", err, want)
	}
	if err := ReadJSON(dir, "missing.json", &c); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
}

// TestFormatErrorUnwraps checks that a FormatError keeps the error behind it: a missing shard is fs.ErrNotExist.
func TestFormatErrorUnwraps(t *testing.T) {
	dir := t.TempDir()
	writeSharded(t, dir, goodIndex)
	os.Remove(filepath.Join(dir, "model-00002-of-00002.safetensors"))
	_, err := OpenCheckpoint(dir)
	var fe *FormatError
	if !errors.As(err, &fe) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenCheckpoint with a shard missing: %v (%T); want a FormatError wrapping fs.ErrNotExist", err, err)
	}
}
