package gguf

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
)

// le builds little-endian bytes from uint8/uint32/uint64/string(raw) pieces, as the format's spec lays
// them out, independently of the encoder.
func le(parts ...any) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		switch x := p.(type) {
		case uint8:
			b.WriteByte(x)
		case uint32:
			binary.Write(&b, binary.LittleEndian, x)
		case uint64:
			binary.Write(&b, binary.LittleEndian, x)
		case string:
			b.WriteString(x)
		case []byte:
			b.Write(x)
		}
	}
	return b.Bytes()
}

// A small file written by Write is byte for byte the layout of the GGUF v3 spec.
func TestWriteLayout(t *testing.T) {
	kvs := []KV{
		{"general.architecture", "llama"},
		{"n", uint32(7)},
		{"ok", true},
		{"toks", []string{"a", "bc"}},
	}
	tensors := []Tensor{
		{Name: "w", Type: F32, Dims: []int64{2}, Write: func(w io.Writer) error {
			_, err := w.Write(le(math.Float32bits(1.5), math.Float32bits(-2)))
			return err
		}},
		{Name: "m", Type: BF16, Dims: []int64{3, 1}, Write: func(w io.Writer) error {
			_, err := w.Write([]byte{1, 2, 3, 4, 5, 6})
			return err
		}},
	}
	var got bytes.Buffer
	if err := Write(&got, kvs, tensors); err != nil {
		t.Fatal(err)
	}
	header := le("GGUF", uint32(3), uint64(2), uint64(4),
		uint64(20), "general.architecture", uint32(8), uint64(5), "llama",
		uint64(1), "n", uint32(4), uint32(7),
		uint64(2), "ok", uint32(7), uint8(1),
		uint64(4), "toks", uint32(9), uint32(8), uint64(2), uint64(1), "a", uint64(2), "bc",
		uint64(1), "w", uint32(1), uint64(2), uint32(0), uint64(0),
		uint64(1), "m", uint32(2), uint64(3), uint64(1), uint32(30), uint64(32))
	pad := func(b []byte) []byte { return append(b, make([]byte, (32-len(b)%32)%32)...) }
	want := pad(header)
	want = pad(append(want, le(math.Float32bits(1.5), math.Float32bits(-2))...))
	want = pad(append(want, 1, 2, 3, 4, 5, 6))
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("layout differs:\n got %x\nwant %x", got.Bytes(), want)
	}
}

// Read gives back what Write wrote, for every value type.
func TestRoundTrip(t *testing.T) {
	kvs := []KV{
		{"u8", uint8(200)}, {"i8", int8(-3)}, {"u16", uint16(60000)}, {"i16", int16(-300)},
		{"u32", uint32(1 << 31)}, {"i32", int32(-1 << 30)}, {"f32", float32(1e-5)}, {"b", false},
		{"s", "héllo"}, {"u64", uint64(1 << 40)}, {"i64", int64(-1 << 40)}, {"f64", 1e300},
		{"ai32", []int32{1, -2, 3}}, {"af32", []float32{0.5}}, {"as", []string{"", "x y"}}, {"ab", []bool{true, false}},
	}
	tensors := []Tensor{{Name: "t", Type: F16, Dims: []int64{5, 2}, Write: func(w io.Writer) error {
		_, err := w.Write(make([]byte, 20))
		return err
	}}}
	var buf bytes.Buffer
	if err := Write(&buf, kvs, tensors); err != nil {
		t.Fatal(err)
	}
	f, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.KVs, kvs) {
		t.Errorf("KVs:\n got %v\nwant %v", f.KVs, kvs)
	}
	want := []TensorInfo{{"t", F16, []int64{5, 2}, 0}}
	if !reflect.DeepEqual(f.Tensors, want) {
		t.Errorf("tensors: got %+v, want %+v", f.Tensors, want)
	}
	if int64(buf.Len()) != f.DataOffset+32 {
		t.Errorf("file is %d bytes, want data offset %d + 32", buf.Len(), f.DataOffset)
	}
}

func TestWriteErrors(t *testing.T) {
	short := func(w io.Writer) error { _, err := w.Write([]byte{1}); return err }
	tests := []struct {
		kvs     []KV
		tensors []Tensor
		want    string
	}{
		{[]KV{{"a", 1}}, nil, `metadata "a": unsupported value type int`},
		{[]KV{{"a", "x"}, {"a", "y"}}, nil, `metadata key "a" twice`},
		{nil, []Tensor{{Name: "t", Type: F32, Dims: []int64{2}, Write: short}}, `tensor "t": wrote 1 bytes, want 8`},
		{nil, []Tensor{{Name: "t", Type: 2, Dims: []int64{2}, Write: short}}, `tensor "t": unsupported type ggml type 2`},
		{nil, []Tensor{{Name: "t", Type: F32, Dims: []int64{0}, Write: short}}, `tensor "t": dims [0]`},
	}
	for _, tt := range tests {
		err := Write(io.Discard, tt.kvs, tt.tensors)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Write: got %v, want an error containing %q", err, tt.want)
		}
	}
}

// A truncated or corrupt header is an error naming the byte offset, never a panic.
func TestReadErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, []KV{{"k", []string{"a"}}}, nil); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	headerLen := len(le("GGUF", uint32(3), uint64(0), uint64(1), uint64(1), "k", uint32(9), uint32(8), uint64(1), uint64(1), "a"))
	if _, err := Read(bytes.NewReader(good[:headerLen])); err != nil {
		t.Fatalf("whole header: %v", err)
	}
	for n := range headerLen {
		if _, err := Read(bytes.NewReader(good[:n])); err == nil || !strings.Contains(err.Error(), "at byte") {
			t.Fatalf("truncated to %d bytes: got %v", n, err)
		}
	}
	bad := append([]byte("GGUF"), le(uint32(2))...)
	if _, err := Read(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("version 2: got %v", err)
	}
	huge := le("GGUF", uint32(3), uint64(0), uint64(1), uint64(1)<<40)
	if _, err := Read(bytes.NewReader(huge)); err == nil || !strings.Contains(err.Error(), "string length") {
		t.Errorf("huge key: got %v", err)
	}
}
