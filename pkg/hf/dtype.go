package hf

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/x448/float16"
)

// DType is a safetensors element type, spelled as in the file header: "F32", "BF16", "F16", "I64", ...
//
// Every dtype of the safetensors specification can be read and written as raw bytes; only F32, BF16 and F16
// convert to float32 (see Checkpoint.Float32).
type DType string

// The element types of the safetensors format.
const (
	BOOL   DType = "BOOL"
	F4     DType = "F4"
	F6E2M3 DType = "F6_E2M3"
	F6E3M2 DType = "F6_E3M2"
	U8     DType = "U8"
	I8     DType = "I8"
	F8E5M2 DType = "F8_E5M2"
	F8E4M3 DType = "F8_E4M3"
	F8E8M0 DType = "F8_E8M0"
	I16    DType = "I16"
	U16    DType = "U16"
	F16    DType = "F16"
	BF16   DType = "BF16"
	I32    DType = "I32"
	U32    DType = "U32"
	F32    DType = "F32"
	C64    DType = "C64"
	F64    DType = "F64"
	I64    DType = "I64"
	U64    DType = "U64"
)

// dtypeInfo gives, for each dtype, its size in bits and its rank in the reference implementation's Dtype
// enum (increasing alignment), which orders tensors in the files it writes.
func dtypeInfo(dt DType) (bits, rank int, ok bool) {
	switch dt {
	case BOOL:
		return 8, 0, true
	case F4:
		return 4, 1, true
	case F6E2M3:
		return 6, 2, true
	case F6E3M2:
		return 6, 3, true
	case U8:
		return 8, 4, true
	case I8:
		return 8, 5, true
	case F8E5M2:
		return 8, 6, true
	case F8E4M3:
		return 8, 7, true
	case F8E8M0:
		return 8, 8, true
	case I16:
		return 16, 9, true
	case U16:
		return 16, 10, true
	case F16:
		return 16, 11, true
	case BF16:
		return 16, 12, true
	case I32:
		return 32, 13, true
	case U32:
		return 32, 14, true
	case F32:
		return 32, 15, true
	case C64:
		return 64, 16, true
	case F64:
		return 64, 17, true
	case I64:
		return 64, 18, true
	case U64:
		return 64, 19, true
	}
	return 0, 0, false
}

// Valid reports whether dt is a dtype of the safetensors format.
func (dt DType) Valid() bool {
	_, _, ok := dtypeInfo(dt)
	return ok
}

// convertible reports whether Float32s and BFloat16s convert dt: F32,
// BF16 and F16.
func (dt DType) convertible() bool { return dt == F32 || dt == BF16 || dt == F16 }

// Bits returns the size of one element in bits (4 and 6 for the sub-byte float types), or 0 for an unknown dtype.
func (dt DType) Bits() int {
	bits, _, _ := dtypeInfo(dt)
	return bits
}

// byteSize returns the number of bytes that n elements of dtype dt occupy. It fails on an unknown dtype, on
// overflow, and when sub-byte elements do not fill whole bytes.
func byteSize(dt DType, n int64) (int64, error) {
	bits, _, ok := dtypeInfo(dt)
	if !ok {
		return 0, fmt.Errorf("unknown dtype %q", string(dt))
	}
	if n < 0 || n > math.MaxInt64/int64(bits) {
		return 0, fmt.Errorf("size of %d %s elements overflows", n, dt)
	}
	nbits := n * int64(bits)
	if nbits%8 != 0 {
		return 0, fmt.Errorf("%d %s elements do not fill a whole number of bytes", n, dt)
	}
	return nbits / 8, nil
}

// numElements returns the product of shape's dimensions, failing on a negative dimension or on overflow.
func numElements(shape []int) (int64, error) {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension in shape %v", shape)
		}
		if d != 0 && n > math.MaxInt64/int64(d) {
			return 0, fmt.Errorf("number of elements of shape %v overflows", shape)
		}
		n *= int64(d)
	}
	return n, nil
}

// BFloat16 converts f to bfloat16 bits, rounding to nearest even (as PyTorch and JAX do). NaNs stay NaNs
// (quiet, sign kept); values beyond the bfloat16 range become ±Inf.
func BFloat16(f float32) uint16 {
	b := math.Float32bits(f)
	if f != f {
		return uint16(b>>16) | 0x0040
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// BFloat16ToFloat32 converts bfloat16 bits to float32; the conversion is exact.
func BFloat16ToFloat32(h uint16) float32 {
	return math.Float32frombits(uint32(h) << 16)
}

// decodeFloat32 converts the little-endian elements of dtype dt in src into dst (len(dst) elements).
func decodeFloat32(dt DType, src []byte, dst []float32) {
	switch dt {
	case F32:
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
		}
	case BF16:
		for i := range dst {
			dst[i] = BFloat16ToFloat32(binary.LittleEndian.Uint16(src[2*i:]))
		}
	case F16:
		for i := range dst {
			dst[i] = float16.Frombits(binary.LittleEndian.Uint16(src[2*i:])).Float32()
		}
	}
}

// Float32Tensor returns an F32 tensor holding data (little-endian) with the given shape.
func Float32Tensor(name string, shape []int, data []float32) Tensor {
	b := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return Tensor{Name: name, DType: F32, Shape: append([]int(nil), shape...), Data: b}
}

// BFloat16Tensor returns a BF16 tensor holding data converted with BFloat16 (round to nearest even).
func BFloat16Tensor(name string, shape []int, data []float32) Tensor {
	b := make([]byte, 2*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint16(b[2*i:], BFloat16(v))
	}
	return Tensor{Name: name, DType: BF16, Shape: append([]int(nil), shape...), Data: b}
}

// Float16Tensor returns an F16 tensor holding data converted to IEEE half precision (round to nearest even).
func Float16Tensor(name string, shape []int, data []float32) Tensor {
	b := make([]byte, 2*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint16(b[2*i:], float16.Fromfloat32(v).Bits())
	}
	return Tensor{Name: name, DType: F16, Shape: append([]int(nil), shape...), Data: b}
}
