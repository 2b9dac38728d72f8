// Package gguf writes and reads GGUF files, the model format of llama.cpp (ggml), and exports gasp's
// safetensors checkpoints of the Llama and Qwen2 families to it (Export), so that llama.cpp runs exactly the
// weights gasp runs: "gasp bench lm" and llama.cpp's benchmarks compare on one checkpoint
// (scripts/bench-1b.sh).
//
// # Format (version 3)
//
// A GGUF file is, all integers little-endian:
//
//	"GGUF" · version uint32 (3) · tensor count int64 · metadata count int64
//	metadata: key string · value type uint32 · value   (an array: element type uint32 · count uint64 · elements)
//	tensor infos: name string · n_dims uint32 · dims int64 × n_dims · ggml type uint32 · offset uint64
//	padding to the alignment (32, or general.alignment) · tensor data, each tensor at its offset (aligned)
//
// where a string is its byte length uint64 and its bytes (no terminator) and a bool one byte. A tensor's
// dims are listed innermost first (ggml's ne[0] is the contiguous dimension), so a row-major [out, in]
// matrix of a Hugging Face checkpoint has dims [in, out] with the same bytes. Offsets are relative to the
// start of the data section and multiples of the alignment.
package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/gasplab/gasp/pkg/atomicfile"
)

// Version is the GGUF version this package writes and reads.
const Version = 3

// Alignment is the alignment of tensor data (GGUF's default; this package writes no general.alignment).
const Alignment = 32

// ValueType is the type of a metadata value (gguf_type).
type ValueType uint32

// The metadata value types.
const (
	TypeUint8 ValueType = iota
	TypeInt8
	TypeUint16
	TypeInt16
	TypeUint32
	TypeInt32
	TypeFloat32
	TypeBool
	TypeString
	TypeArray
	TypeUint64
	TypeInt64
	TypeFloat64
)

// TensorType is a tensor's element type (ggml_type). Only the unquantized types gasp's checkpoints have are
// named here.
type TensorType uint32

// The tensor types this package writes.
const (
	F32  TensorType = 0
	F16  TensorType = 1
	BF16 TensorType = 30
)

// elementSize returns the bytes per element of t, or 0 for a type this package does not write.
func (t TensorType) elementSize() int64 {
	switch t {
	case F32:
		return 4
	case F16, BF16:
		return 2
	}
	return 0
}

func (t TensorType) String() string {
	switch t {
	case F32:
		return "F32"
	case F16:
		return "F16"
	case BF16:
		return "BF16"
	}
	return fmt.Sprintf("ggml type %d", uint32(t))
}

// A KV is one metadata entry. Value is one of uint8, int8, uint16, int16, uint32, int32, float32, bool,
// string, uint64, int64, float64, or a slice of one of them ([]string for an array of strings).
type KV struct {
	Key   string
	Value any
}

// A Tensor is one tensor to write: its name, type, dims innermost first (ggml's order) and a function that
// writes its exactly Size() bytes, called once while the file is written (so that a large tensor is read
// or made only then).
type Tensor struct {
	Name  string
	Type  TensorType
	Dims  []int64
	Write func(w io.Writer) error
}

// Size returns the tensor's data size in bytes.
func (t Tensor) Size() int64 {
	n := t.Type.elementSize()
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// WriteFile writes a GGUF file at path (atomically: a temporary file renamed over path).
func WriteFile(path string, kvs []KV, tensors []Tensor) error {
	err := atomicfile.Write(path, func(f io.Writer) error {
		w := bufio.NewWriterSize(f, 1<<20)
		if err := Write(w, kvs, tensors); err != nil {
			return err
		}
		return w.Flush()
	})
	if err != nil {
		return fmt.Errorf("gguf: %s: %w", path, err)
	}
	return nil
}

// Write writes a GGUF file to w.
func Write(w io.Writer, kvs []KV, tensors []Tensor) error {
	if err := check(kvs, tensors); err != nil {
		return err
	}
	cw := &countingWriter{w: w}
	e := encoder{w: cw}
	e.raw([]byte("GGUF"))
	e.u32(Version)
	e.u64(uint64(len(tensors)))
	e.u64(uint64(len(kvs)))
	for _, kv := range kvs {
		e.str(kv.Key)
		e.value(kv.Value, true)
	}
	var off int64
	for _, t := range tensors {
		e.str(t.Name)
		e.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			e.u64(uint64(d))
		}
		e.u32(uint32(t.Type))
		e.u64(uint64(off))
		off = align(off + t.Size())
	}
	e.pad(cw)
	for _, t := range tensors {
		if e.err != nil {
			return e.err
		}
		start := cw.n
		if err := t.Write(cw); err != nil {
			return fmt.Errorf("gguf: tensor %q: %w", t.Name, err)
		}
		if got := cw.n - start; got != t.Size() {
			return fmt.Errorf("gguf: tensor %q: wrote %d bytes, want %d", t.Name, got, t.Size())
		}
		e.pad(cw)
	}
	return e.err
}

// check fails on a duplicate key or tensor name, a value of an unsupported type, an unsupported tensor
// type or a dimension < 1.
func check(kvs []KV, tensors []Tensor) error {
	keys := make(map[string]bool)
	for _, kv := range kvs {
		if keys[kv.Key] {
			return fmt.Errorf("gguf: metadata key %q twice", kv.Key)
		}
		keys[kv.Key] = true
		if _, ok := valueType(kv.Value); !ok {
			return fmt.Errorf("gguf: metadata %q: unsupported value type %T", kv.Key, kv.Value)
		}
	}
	names := make(map[string]bool)
	for _, t := range tensors {
		if names[t.Name] {
			return fmt.Errorf("gguf: tensor %q twice", t.Name)
		}
		names[t.Name] = true
		if t.Type.elementSize() == 0 {
			return fmt.Errorf("gguf: tensor %q: unsupported type %s", t.Name, t.Type)
		}
		if len(t.Dims) == 0 || len(t.Dims) > 4 {
			return fmt.Errorf("gguf: tensor %q: %d dims (want 1 to 4)", t.Name, len(t.Dims))
		}
		for _, d := range t.Dims {
			if d < 1 {
				return fmt.Errorf("gguf: tensor %q: dims %v", t.Name, t.Dims)
			}
		}
	}
	return nil
}

func align(n int64) int64 { return (n + Alignment - 1) / Alignment * Alignment }

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// encoder writes little-endian values and keeps the first error.
type encoder struct {
	w   io.Writer
	err error
	buf [8]byte
}

func (e *encoder) raw(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *encoder) u8(v uint8)   { e.raw([]byte{v}) }
func (e *encoder) u16(v uint16) { binary.LittleEndian.PutUint16(e.buf[:], v); e.raw(e.buf[:2]) }
func (e *encoder) u32(v uint32) { binary.LittleEndian.PutUint32(e.buf[:], v); e.raw(e.buf[:4]) }
func (e *encoder) u64(v uint64) { binary.LittleEndian.PutUint64(e.buf[:], v); e.raw(e.buf[:8]) }
func (e *encoder) str(s string) { e.u64(uint64(len(s))); e.raw([]byte(s)) }

// pad writes zeros up to the next multiple of Alignment of the bytes written so far.
func (e *encoder) pad(cw *countingWriter) {
	if n := align(cw.n) - cw.n; n > 0 {
		e.raw(make([]byte, n))
	}
}

// valueType returns the GGUF type of a metadata value (TypeArray for a slice).
func valueType(v any) (ValueType, bool) {
	switch v.(type) {
	case uint8:
		return TypeUint8, true
	case int8:
		return TypeInt8, true
	case uint16:
		return TypeUint16, true
	case int16:
		return TypeInt16, true
	case uint32:
		return TypeUint32, true
	case int32:
		return TypeInt32, true
	case float32:
		return TypeFloat32, true
	case bool:
		return TypeBool, true
	case string:
		return TypeString, true
	case uint64:
		return TypeUint64, true
	case int64:
		return TypeInt64, true
	case float64:
		return TypeFloat64, true
	case []uint8, []int8, []uint16, []int16, []uint32, []int32, []float32, []bool, []string, []uint64, []int64, []float64:
		return TypeArray, true
	}
	return 0, false
}

// value writes v, preceded by its type when typed is true (array elements carry no type of their own).
func (e *encoder) value(v any, typed bool) {
	t, _ := valueType(v)
	if typed {
		e.u32(uint32(t))
	}
	switch x := v.(type) {
	case uint8:
		e.u8(x)
	case int8:
		e.u8(uint8(x))
	case uint16:
		e.u16(x)
	case int16:
		e.u16(uint16(x))
	case uint32:
		e.u32(x)
	case int32:
		e.u32(uint32(x))
	case float32:
		e.u32(math.Float32bits(x))
	case bool:
		b := uint8(0)
		if x {
			b = 1
		}
		e.u8(b)
	case string:
		e.str(x)
	case uint64:
		e.u64(x)
	case int64:
		e.u64(uint64(x))
	case float64:
		e.u64(math.Float64bits(x))
	default:
		e.array(v)
	}
}

// array writes a slice as element type, count and elements.
func (e *encoder) array(v any) {
	switch x := v.(type) {
	case []uint8:
		arrayOf(e, x)
	case []int8:
		arrayOf(e, x)
	case []uint16:
		arrayOf(e, x)
	case []int16:
		arrayOf(e, x)
	case []uint32:
		arrayOf(e, x)
	case []int32:
		arrayOf(e, x)
	case []float32:
		arrayOf(e, x)
	case []bool:
		arrayOf(e, x)
	case []string:
		arrayOf(e, x)
	case []uint64:
		arrayOf(e, x)
	case []int64:
		arrayOf(e, x)
	case []float64:
		arrayOf(e, x)
	}
}

func arrayOf[T any](e *encoder, xs []T) {
	var zero T
	t, _ := valueType(zero)
	e.u32(uint32(t))
	e.u64(uint64(len(xs)))
	for _, x := range xs {
		e.value(x, false)
	}
}

// File is a GGUF file's header as Read returns it.
type File struct {
	Version    uint32
	KVs        []KV // values as KV says (arrays as slices)
	Tensors    []TensorInfo
	DataOffset int64 // where the data section starts in the file
}

// TensorInfo is one tensor's entry in a GGUF header.
type TensorInfo struct {
	Name   string
	Type   TensorType
	Dims   []int64
	Offset int64 // relative to File.DataOffset
}

// Value returns the value of key, and whether the file has it.
func (f *File) Value(key string) (any, bool) {
	for _, kv := range f.KVs {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// ReadFile reads the header of the GGUF file at path.
func ReadFile(path string) (*File, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	defer fd.Close()
	f, err := Read(bufio.NewReader(fd))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}
