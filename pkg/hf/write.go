package hf

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gasplab/gasp/pkg/atomicfile"
)

// Tensor is a tensor to write: its name, dtype, shape and raw little-endian data in row-major order.
type Tensor struct {
	Name  string
	DType DType
	Shape []int
	Data  []byte
}

// WriteSafetensors writes tensors and metadata to a safetensors file at path. The file is written to a
// temporary file in the same directory, synced and renamed over path, so a crash never leaves a partial file.
//
// The output is deterministic and laid out as the reference implementation (huggingface/safetensors) lays it
// out: tensors ordered by decreasing dtype alignment then by name, so that every tensor's data is aligned to its
// element size; the header is compact JSON with "__metadata__" first (keys sorted), padded with spaces to a
// multiple of 8 bytes.
func WriteSafetensors(path string, tensors []Tensor, metadata map[string]string) error {
	header, order, err := safetensorsHeader(tensors, metadata, path)
	if err != nil {
		return err
	}
	err = atomicfile.Write(path, func(f io.Writer) error {
		w := bufio.NewWriterSize(f, 1<<20)
		if err := writeSafetensors(w, header, tensors, order); err != nil {
			return err
		}
		return w.Flush()
	})
	if err != nil {
		return fmt.Errorf("hf: %w", err)
	}
	return nil
}

func writeSafetensors(w io.Writer, header []byte, tensors []Tensor, order []int) error {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(header)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	if _, err := w.Write(header); err != nil {
		return err
	}
	for _, i := range order {
		if _, err := w.Write(tensors[i].Data); err != nil {
			return err
		}
	}
	return nil
}

// safetensorsHeader validates the tensors and returns the padded header and the order in which their data
// follows it.
func safetensorsHeader(tensors []Tensor, metadata map[string]string, path string) ([]byte, []int, error) {
	if err := checkTensors(tensors, metadata, path); err != nil {
		return nil, nil, err
	}
	order := dataOrder(tensors)
	var b bytes.Buffer
	b.WriteByte('{')
	if len(metadata) > 0 {
		writeMetadata(&b, metadata)
	}
	offset := 0
	for _, i := range order {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		writeTensorEntry(&b, &tensors[i], offset)
		offset += len(tensors[i].Data)
	}
	b.WriteByte('}')
	if pad := (8 - b.Len()%8) % 8; pad > 0 {
		b.WriteString(strings.Repeat(" ", pad))
	}
	if b.Len() > MaxHeaderSize {
		return nil, nil, formatErrorf(path, "", "header of %d bytes exceeds the limit of %d", b.Len(), MaxHeaderSize)
	}
	return b.Bytes(), order, nil
}

// checkTensors fails on a tensor that cannot be written (reserved, invalid or repeated name, unknown dtype,
// data that does not match the shape) and on metadata that is not valid UTF-8.
func checkTensors(tensors []Tensor, metadata map[string]string, path string) error {
	seen := make(map[string]bool, len(tensors))
	for _, t := range tensors {
		switch {
		case t.Name == "__metadata__":
			return formatErrorf(path, t.Name, "reserved name")
		case !utf8.ValidString(t.Name):
			return formatErrorf(path, t.Name, "name is not valid UTF-8")
		case seen[t.Name]:
			return formatErrorf(path, t.Name, "given twice")
		case !t.DType.Valid():
			return formatErrorf(path, t.Name, "unknown dtype %q", string(t.DType))
		}
		seen[t.Name] = true
		n, err := numElements(t.Shape)
		if err != nil {
			return formatErrorf(path, t.Name, "%w", err)
		}
		size, err := byteSize(t.DType, n)
		if err != nil {
			return formatErrorf(path, t.Name, "%w", err)
		}
		if size != int64(len(t.Data)) {
			return formatErrorf(path, t.Name, "shape %v of %s needs %d bytes, data has %d", t.Shape, t.DType, size, len(t.Data))
		}
	}
	for k, v := range metadata {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return formatErrorf(path, "", "metadata %q is not valid UTF-8", k)
		}
	}
	return nil
}

// dataOrder returns the order of the tensors' data in the file: by decreasing dtype alignment, then by name.
func dataOrder(tensors []Tensor) []int {
	order := make([]int, len(tensors))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		ta, tb := &tensors[order[a]], &tensors[order[b]]
		_, ra, _ := dtypeInfo(ta.DType)
		_, rb, _ := dtypeInfo(tb.DType)
		if ra != rb {
			return ra > rb
		}
		return ta.Name < tb.Name
	})
	return order
}

// writeMetadata writes the header's "__metadata__" entry, its keys sorted.
func writeMetadata(b *bytes.Buffer, metadata map[string]string) {
	b.WriteString(`"__metadata__":{`)
	keys := make([]string, 0, len(metadata))
	for k := range metadata {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, k)
		b.WriteByte(':')
		writeJSONString(b, metadata[k])
	}
	b.WriteByte('}')
}

// writeTensorEntry writes the header's entry of t, whose data starts offset bytes after the header.
func writeTensorEntry(b *bytes.Buffer, t *Tensor, offset int) {
	writeJSONString(b, t.Name)
	b.WriteString(`:{"dtype":`)
	writeJSONString(b, string(t.DType))
	b.WriteString(`,"shape":[`)
	for j, d := range t.Shape {
		if j > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(d))
	}
	fmt.Fprintf(b, `],"data_offsets":[%d,%d]}`, offset, offset+len(t.Data))
}

// writeJSONString writes s as a JSON string without HTML escaping, as serde_json does.
func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // encoding a string into a bytes.Buffer cannot fail
	b.Truncate(b.Len() - 1) // Encode's newline
}
