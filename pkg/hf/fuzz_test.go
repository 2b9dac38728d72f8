package hf

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"
)

// FuzzOpenSafetensors feeds arbitrary header bytes, followed by dataLen bytes of data, to the reader, with the
// length prefix off by lenDelta. Opening must never panic; a file it accepts must read back every tensor and
// survive a round trip through the writer.
func FuzzOpenSafetensors(f *testing.F) {
	f.Add([]byte(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"BF16","shape":[1],"data_offsets":[8,10]}}`), uint16(10), int8(0))
	f.Add([]byte(`{"__metadata__":{"format":"pt"},"x":{"dtype":"F16","shape":[1,2],"data_offsets":[0,4]}}  `), uint16(4), int8(0))
	f.Add([]byte(`{"a":{"dtype":"F4","shape":[3],"data_offsets":[0,1]}}`), uint16(1), int8(0))
	f.Add([]byte(`{"a":{"dtype":"I64","shape":[],"data_offsets":[0,8]},"e":{"dtype":"U8","shape":[0],"data_offsets":[8,8]}}`), uint16(8), int8(0))
	f.Add([]byte(`{}`), uint16(0), int8(0))
	f.Add([]byte(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`), uint16(8), int8(3))
	f.Add([]byte(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]},"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`), uint16(12), int8(0))
	f.Add([]byte(`{"a":{"dtype":"F32","shape":[9223372036854775807],"data_offsets":[0,4]}}`), uint16(4), int8(-1))
	f.Fuzz(func(t *testing.T, header []byte, dataLen uint16, lenDelta int8) {
		n := int64(len(header)) + int64(lenDelta)
		file := binary.LittleEndian.AppendUint64(nil, uint64(n))
		file = append(file, header...)
		file = append(file, make([]byte, int(dataLen)%4096)...)
		for i := 8 + len(header); i < len(file); i++ {
			file[i] = byte(i * 7)
		}
		sf, err := parseSafetensors(bytes.NewReader(file), int64(len(file)), "fuzz.safetensors")
		if err != nil {
			return
		}
		c := singleCheckpoint(sf)
		var tensors []Tensor
		for _, ti := range c.Tensors() {
			if ti.Offset < 8+n || ti.Offset+ti.Size > int64(len(file)) {
				t.Fatalf("tensor %q at [%d, %d) outside the data of a %d-byte file", ti.Name, ti.Offset, ti.Offset+ti.Size, len(file))
			}
			raw, err := c.Bytes(ti.Name)
			if err != nil {
				t.Fatalf("Bytes(%q): %v", ti.Name, err)
			}
			if ti.DType == F32 || ti.DType == BF16 || ti.DType == F16 {
				vals, err := c.Float32(ti.Name)
				if err != nil || int64(len(vals)) != ti.NumElements() {
					t.Fatalf("Float32(%q) = %d values, %v; want %d", ti.Name, len(vals), err, ti.NumElements())
				}
			} else if _, err := c.Float32(ti.Name); err == nil {
				t.Fatalf("Float32(%q) of dtype %s succeeded", ti.Name, ti.DType)
			}
			tensors = append(tensors, Tensor{Name: ti.Name, DType: ti.DType, Shape: ti.Shape, Data: raw})
		}
		// Round trip through the writer.
		hdr, order, err := safetensorsHeader(tensors, c.Metadata(), "fuzz")
		if err != nil {
			t.Fatalf("rewriting an accepted file: %v", err)
		}
		var out bytes.Buffer
		if err := writeSafetensors(&out, hdr, tensors, order); err != nil {
			t.Fatal(err)
		}
		sf2, err := parseSafetensors(bytes.NewReader(out.Bytes()), int64(out.Len()), "fuzz2")
		if err != nil {
			t.Fatalf("reading a rewritten file: %v", err)
		}
		c2 := singleCheckpoint(sf2)
		if len(c2.Tensors()) != len(tensors) {
			t.Fatalf("round trip: %d tensors, want %d", len(c2.Tensors()), len(tensors))
		}
		for _, want := range tensors {
			ti, ok := c2.Info(want.Name)
			got, err := c2.Bytes(want.Name)
			if !ok || err != nil || ti.DType != want.DType || !slices.Equal(ti.Shape, want.Shape) || !bytes.Equal(got, want.Data) {
				t.Fatalf("round trip of %q: %+v, %v", want.Name, ti, err)
			}
		}
	})
}
