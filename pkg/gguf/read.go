package gguf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Limits on what Read accepts, so that a corrupt count fails instead of allocating without bound.
const (
	maxCount     = 1 << 24 // metadata entries, tensors, array elements
	maxStringLen = 1 << 24
)

// Read reads a GGUF header (metadata and tensor infos) from r. Errors name the byte offset where the
// header went wrong.
func Read(r io.Reader) (*File, error) {
	d := &decoder{r: r}
	f, err := d.file()
	if err != nil {
		return nil, fmt.Errorf("gguf: at byte %d: %w", d.n, err)
	}
	return f, nil
}

type decoder struct {
	r   io.Reader
	n   int64
	buf [8]byte
}

func (d *decoder) read(b []byte) error {
	n, err := io.ReadFull(d.r, b)
	d.n += int64(n)
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return err
}

func (d *decoder) u8() (uint8, error) {
	err := d.read(d.buf[:1])
	return d.buf[0], err
}

func (d *decoder) u16() (uint16, error) {
	err := d.read(d.buf[:2])
	return binary.LittleEndian.Uint16(d.buf[:]), err
}

func (d *decoder) u32() (uint32, error) {
	err := d.read(d.buf[:4])
	return binary.LittleEndian.Uint32(d.buf[:]), err
}

func (d *decoder) u64() (uint64, error) {
	err := d.read(d.buf[:8])
	return binary.LittleEndian.Uint64(d.buf[:]), err
}

func (d *decoder) count(what string) (int, error) {
	n, err := d.u64()
	if err == nil && n > maxCount {
		err = fmt.Errorf("%s count %d exceeds %d", what, n, maxCount)
	}
	return int(n), err
}

func (d *decoder) str() (string, error) {
	n, err := d.u64()
	if err != nil {
		return "", err
	}
	if n > maxStringLen {
		return "", fmt.Errorf("string length %d exceeds %d", n, maxStringLen)
	}
	b := make([]byte, n)
	err = d.read(b)
	return string(b), err
}

func (d *decoder) file() (*File, error) {
	var magic [4]byte
	if err := d.read(magic[:]); err != nil {
		return nil, err
	}
	if string(magic[:]) != "GGUF" {
		return nil, fmt.Errorf("magic %q, want \"GGUF\"", magic[:])
	}
	f := &File{}
	var err error
	if f.Version, err = d.u32(); err != nil {
		return nil, err
	}
	if f.Version != Version {
		return nil, fmt.Errorf("version %d, want %d", f.Version, Version)
	}
	nt, err := d.count("tensor")
	if err != nil {
		return nil, err
	}
	nkv, err := d.count("metadata")
	if err != nil {
		return nil, err
	}
	for range nkv {
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		t, err := d.u32()
		if err != nil {
			return nil, err
		}
		v, err := d.value(ValueType(t))
		if err != nil {
			return nil, fmt.Errorf("metadata %q: %w", key, err)
		}
		f.KVs = append(f.KVs, KV{key, v})
	}
	for range nt {
		ti, err := d.tensorInfo()
		if err != nil {
			return nil, err
		}
		f.Tensors = append(f.Tensors, ti)
	}
	f.DataOffset = align(d.n)
	return f, nil
}

func (d *decoder) tensorInfo() (TensorInfo, error) {
	var ti TensorInfo
	var err error
	if ti.Name, err = d.str(); err != nil {
		return ti, err
	}
	nd, err := d.u32()
	if err != nil {
		return ti, err
	}
	if nd < 1 || nd > 4 {
		return ti, fmt.Errorf("tensor %q: %d dims", ti.Name, nd)
	}
	for range nd {
		v, err := d.u64()
		if err != nil {
			return ti, err
		}
		ti.Dims = append(ti.Dims, int64(v))
	}
	t, err := d.u32()
	if err != nil {
		return ti, err
	}
	ti.Type = TensorType(t)
	off, err := d.u64()
	ti.Offset = int64(off)
	return ti, err
}

// value reads one value of type t.
func (d *decoder) value(t ValueType) (any, error) {
	switch t {
	case TypeUint8:
		return d.u8()
	case TypeInt8:
		v, err := d.u8()
		return int8(v), err
	case TypeUint16:
		return d.u16()
	case TypeInt16:
		v, err := d.u16()
		return int16(v), err
	case TypeUint32:
		return d.u32()
	case TypeInt32:
		v, err := d.u32()
		return int32(v), err
	case TypeFloat32:
		v, err := d.u32()
		return math.Float32frombits(v), err
	case TypeBool:
		v, err := d.u8()
		if err == nil && v > 1 {
			err = fmt.Errorf("bool value %d", v)
		}
		return v == 1, err
	case TypeString:
		return d.str()
	case TypeUint64:
		return d.u64()
	case TypeInt64:
		v, err := d.u64()
		return int64(v), err
	case TypeFloat64:
		v, err := d.u64()
		return math.Float64frombits(v), err
	case TypeArray:
		return d.array()
	}
	return nil, fmt.Errorf("unknown value type %d", t)
}

// array reads an array's element type, count and elements into a slice of the element type.
func (d *decoder) array() (any, error) {
	t, err := d.u32()
	if err != nil {
		return nil, err
	}
	n, err := d.count("array")
	if err != nil {
		return nil, err
	}
	switch ValueType(t) {
	case TypeUint8:
		return readArray[uint8](d, n, TypeUint8)
	case TypeInt8:
		return readArray[int8](d, n, TypeInt8)
	case TypeUint16:
		return readArray[uint16](d, n, TypeUint16)
	case TypeInt16:
		return readArray[int16](d, n, TypeInt16)
	case TypeUint32:
		return readArray[uint32](d, n, TypeUint32)
	case TypeInt32:
		return readArray[int32](d, n, TypeInt32)
	case TypeFloat32:
		return readArray[float32](d, n, TypeFloat32)
	case TypeBool:
		return readArray[bool](d, n, TypeBool)
	case TypeString:
		return readArray[string](d, n, TypeString)
	case TypeUint64:
		return readArray[uint64](d, n, TypeUint64)
	case TypeInt64:
		return readArray[int64](d, n, TypeInt64)
	case TypeFloat64:
		return readArray[float64](d, n, TypeFloat64)
	}
	return nil, fmt.Errorf("array of value type %d", t)
}

func readArray[T any](d *decoder, n int, t ValueType) ([]T, error) {
	xs := make([]T, n)
	for i := range xs {
		v, err := d.value(t)
		if err != nil {
			return nil, fmt.Errorf("array element %d: %w", i, err)
		}
		xs[i] = v.(T)
	}
	return xs, nil
}
