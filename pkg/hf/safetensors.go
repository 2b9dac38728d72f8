package hf

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/gasplab/gasp/pkg/infile"
)

// File names of a safetensors checkpoint in a model directory.
const (
	SafetensorsFile      = "model.safetensors"
	SafetensorsIndexFile = "model.safetensors.index.json"
)

// MaxHeaderSize is the largest safetensors header accepted, as in the reference implementation (100 MB).
const MaxHeaderSize = 100_000_000

// TensorInfo describes one tensor of a checkpoint.
type TensorInfo struct {
	Name  string
	DType DType
	Shape []int
	// Offset is the absolute byte offset of the tensor's data in File, and Size its length in bytes.
	Offset, Size int64
	// File is the path of the safetensors file holding the tensor.
	File string
}

// NumElements returns the number of elements of the tensor (1 for a scalar).
func (ti TensorInfo) NumElements() int64 {
	n, _ := numElements(ti.Shape) // validated when the file was opened
	return n
}

// FormatError reports a malformed safetensors file or index.
type FormatError struct {
	File   string // the file at fault
	Tensor string // the tensor at fault, if any
	Msg    string
	Err    error // the error behind Msg, if any (a JSON syntax error, a missing shard's *fs.PathError)
}

// Unwrap returns e.Err, for errors.Is and errors.As.
func (e *FormatError) Unwrap() error { return e.Err }

func (e *FormatError) Error() string {
	if e.Tensor != "" {
		return fmt.Sprintf("hf: %s: tensor %q: %s", e.File, e.Tensor, e.Msg)
	}
	return fmt.Sprintf("hf: %s: %s", e.File, e.Msg)
}

// formatErrorf returns a FormatError whose Msg is format applied to args; an error given with %w becomes Err.
func formatErrorf(file, tensor, format string, args ...any) *FormatError {
	err := fmt.Errorf(format, args...)
	return &FormatError{File: file, Tensor: tensor, Msg: err.Error(), Err: errors.Unwrap(err)}
}

// Checkpoint is an open safetensors checkpoint: a single file or a sharded set described by
// model.safetensors.index.json. Opening reads and validates the headers only; tensor data is read on demand
// with ReadAt, so opening a checkpoint of many gigabytes is cheap.
//
// A Checkpoint is safe for concurrent use by multiple goroutines, except for Close.
type Checkpoint struct {
	files    []*stFile
	tensors  map[string]TensorInfo
	readers  map[string]io.ReaderAt // TensorInfo.File → its reader
	names    []string               // sorted
	metadata map[string]string
}

// stFile is one parsed safetensors file.
type stFile struct {
	path     string
	r        io.ReaderAt
	closer   io.Closer
	tensors  []TensorInfo // in header order of offsets
	metadata map[string]string
}

// OpenSafetensors opens one safetensors file and validates its header.
func OpenSafetensors(path string) (*Checkpoint, error) {
	sf, err := openSTFile(path)
	if err != nil {
		return nil, err
	}
	return singleCheckpoint(sf), nil
}

func singleCheckpoint(sf *stFile) *Checkpoint {
	c := newCheckpoint([]*stFile{sf})
	for _, ti := range sf.tensors {
		c.tensors[ti.Name] = ti
	}
	c.metadata = sf.metadata
	c.finish()
	return c
}

// OpenCheckpoint opens the safetensors checkpoint in dir: model.safetensors if present, else the shards listed
// by model.safetensors.index.json.
func OpenCheckpoint(dir string) (*Checkpoint, error) {
	single := filepath.Join(dir, SafetensorsFile)
	if _, err := os.Lstat(single); err == nil {
		return OpenSafetensors(single) // which says what is wrong with it, if anything
	}
	index := filepath.Join(dir, SafetensorsIndexFile)
	if _, err := os.Stat(index); err == nil {
		return openIndex(index)
	}
	return nil, fmt.Errorf("hf: %s: no %s or %s: %w", dir, SafetensorsFile, SafetensorsIndexFile, os.ErrNotExist)
}

func newCheckpoint(files []*stFile) *Checkpoint {
	c := &Checkpoint{
		files:   files,
		tensors: make(map[string]TensorInfo),
		readers: make(map[string]io.ReaderAt, len(files)),
	}
	for _, f := range files {
		c.readers[f.path] = f.r
	}
	return c
}

func (c *Checkpoint) finish() {
	c.names = make([]string, 0, len(c.tensors))
	for name := range c.tensors {
		c.names = append(c.names, name)
	}
	sort.Strings(c.names)
	if c.metadata == nil {
		c.metadata = map[string]string{}
	}
}

// Tensors returns the descriptions of all tensors, sorted by name.
func (c *Checkpoint) Tensors() []TensorInfo {
	out := make([]TensorInfo, len(c.names))
	for i, name := range c.names {
		out[i] = c.tensors[name]
		out[i].Shape = slices.Clone(out[i].Shape)
	}
	return out
}

// Info returns the description of the named tensor.
func (c *Checkpoint) Info(name string) (TensorInfo, bool) {
	ti, ok := c.tensors[name]
	ti.Shape = slices.Clone(ti.Shape)
	return ti, ok
}

// Metadata returns the "__metadata__" of a single file, or the "metadata" of a sharded checkpoint's index (values
// that are not JSON strings, such as "total_size", in their JSON text). The caller may modify the returned map.
func (c *Checkpoint) Metadata() map[string]string {
	out := make(map[string]string, len(c.metadata))
	for k, v := range c.metadata {
		out[k] = v
	}
	return out
}

// Bytes returns the raw little-endian bytes of the named tensor.
func (c *Checkpoint) Bytes(name string) ([]byte, error) {
	ti, ok := c.tensors[name]
	if !ok {
		return nil, fmt.Errorf("hf: checkpoint has no tensor %q", name)
	}
	buf := make([]byte, ti.Size)
	if err := c.readAt(ti, buf, ti.Offset); err != nil {
		return nil, err
	}
	return buf, nil
}

// Float32 reads the named tensor, converting F16 and BF16 to float32 (exactly). Other dtypes give an
// "unsupported dtype" error.
func (c *Checkpoint) Float32(name string) ([]float32, error) {
	var dst []float32
	err := c.readFloats(name, "float32", func(n int64) { dst = make([]float32, n) },
		func(dt DType, b []byte, i, m int64) { decodeFloat32(dt, b, dst[i:i+m]) })
	if err != nil {
		return nil, err
	}
	return dst, nil
}

// BFloat16 reads the named tensor as bfloat16 bits: BF16 as stored, with no conversion; F32 and F16 rounded
// to nearest even (see BFloat16). Other dtypes give an "unsupported dtype" error.
func (c *Checkpoint) BFloat16(name string) ([]uint16, error) {
	var dst []uint16
	var f []float32
	err := c.readFloats(name, "bfloat16", func(n int64) { dst, f = make([]uint16, n), make([]float32, min(n, floatChunk)) },
		func(dt DType, b []byte, i, m int64) {
			out := dst[i : i+m]
			if dt == BF16 {
				for j := range out {
					out[j] = binary.LittleEndian.Uint16(b[2*j:])
				}
				return
			}
			decodeFloat32(dt, b, f[:m])
			for j := range out {
				out[j] = BFloat16(f[j])
			}
		})
	if err != nil {
		return nil, err
	}
	return dst, nil
}

// floatChunk is how many elements readFloats reads at a time, so that the raw bytes and the converted
// values are not both held whole.
const floatChunk = 1 << 18

// readFloats reads the F32, BF16 or F16 tensor name in chunks: alloc is called once with its element
// count, then convert with each chunk's bytes b of elements i … i+m-1. target names the conversion in
// errors.
func (c *Checkpoint) readFloats(name, target string, alloc func(n int64), convert func(dt DType, b []byte, i, m int64)) error {
	ti, ok := c.tensors[name]
	if !ok {
		return fmt.Errorf("hf: checkpoint has no tensor %q", name)
	}
	if !ti.DType.convertible() {
		return fmt.Errorf("hf: %s: tensor %q: unsupported dtype %s for conversion to %s (want F32, BF16 or F16)",
			ti.File, name, ti.DType, target)
	}
	elem := int64(ti.DType.Bits() / 8)
	n := ti.Size / elem
	if n > math.MaxInt {
		return fmt.Errorf("hf: %s: tensor %q: too large (%d elements)", ti.File, name, n)
	}
	alloc(n)
	buf := make([]byte, min(n, floatChunk)*elem)
	for i := int64(0); i < n; i += floatChunk {
		m := min(n-i, floatChunk)
		b := buf[:m*elem]
		if err := c.readAt(ti, b, ti.Offset+i*elem); err != nil {
			return err
		}
		convert(ti.DType, b, i, m)
	}
	return nil
}

func (c *Checkpoint) readAt(ti TensorInfo, buf []byte, off int64) error {
	if len(buf) == 0 {
		return nil
	}
	r := c.readers[ti.File]
	if r == nil {
		return fmt.Errorf("hf: %s: tensor %q: no reader for file", ti.File, ti.Name)
	}
	if _, err := r.ReadAt(buf, off); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("hf: %s: reading tensor %q: %w", ti.File, ti.Name, err)
	}
	return nil
}

// Close closes the checkpoint's files.
func (c *Checkpoint) Close() error {
	var errs []error
	for _, f := range c.files {
		if f.closer != nil {
			if err := f.closer.Close(); err != nil {
				errs = append(errs, err)
			}
			f.closer = nil
		}
	}
	return errors.Join(errs...)
}

// openSTFile opens a safetensors file: a regular file of any size (a FIFO
// or device is refused before it is opened for reading), whose header
// parseSafetensors checks against that size.
func openSTFile(path string) (*stFile, error) {
	f, err := infile.Open(path, infile.Any)
	if err != nil {
		return nil, fmt.Errorf("hf: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("hf: %w", err)
	}
	sf, err := parseSafetensors(f, fi.Size(), path)
	if err != nil {
		f.Close()
		return nil, err
	}
	sf.closer = f
	return sf, nil
}

// parseSafetensors reads and validates the header of a safetensors file of the given size read through r.
func parseSafetensors(r io.ReaderAt, size int64, path string) (*stFile, error) {
	var lenBuf [8]byte
	if size < 8 {
		return nil, formatErrorf(path, "", "file too short (%d bytes) for a safetensors header", size)
	}
	if _, err := r.ReadAt(lenBuf[:], 0); err != nil {
		return nil, fmt.Errorf("hf: %s: reading header length: %w", path, err)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	if n > MaxHeaderSize {
		return nil, formatErrorf(path, "", "header length %d exceeds the limit of %d bytes (not a safetensors file?)", n, MaxHeaderSize)
	}
	if int64(n) > size-8 {
		return nil, formatErrorf(path, "", "header length %d larger than the file (%d bytes; truncated?)", n, size)
	}
	header := make([]byte, n)
	if _, err := r.ReadAt(header, 8); err != nil {
		return nil, fmt.Errorf("hf: %s: reading header: %w", path, err)
	}
	sf, err := parseHeader(header, size-8-int64(n), path)
	if err != nil {
		return nil, err
	}
	sf.r = r
	for i := range sf.tensors {
		sf.tensors[i].Offset += 8 + int64(n)
	}
	return sf, nil
}

// parseHeader parses and validates a header; the tensors' offsets are relative to the data buffer of
// dataSize bytes.
func parseHeader(header []byte, dataSize int64, path string) (*stFile, error) {
	if !utf8.Valid(header) {
		return nil, formatErrorf(path, "", "malformed header: not valid UTF-8")
	}
	if len(header) == 0 || header[0] != '{' {
		return nil, formatErrorf(path, "", "malformed header: does not start with '{'")
	}
	dec := json.NewDecoder(bytes.NewReader(header))
	if _, err := dec.Token(); err != nil {
		return nil, formatErrorf(path, "", "malformed header JSON: %w", err)
	}
	sf := &stFile{path: path}
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, formatErrorf(path, "", "malformed header JSON: %w", err)
		}
		key, _ := tok.(string) // object keys are always strings
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, formatErrorf(path, "", "malformed header JSON: %w", err)
		}
		if seen[key] {
			return nil, formatErrorf(path, key, "listed twice in the header")
		}
		seen[key] = true
		if key == "__metadata__" {
			if string(raw) == "null" {
				continue
			}
			if err := json.Unmarshal(raw, &sf.metadata); err != nil || sf.metadata == nil {
				return nil, formatErrorf(path, "", "malformed __metadata__: want an object of strings")
			}
			continue
		}
		ti, err := parseTensorEntry(raw, key, path)
		if err != nil {
			return nil, err
		}
		sf.tensors = append(sf.tensors, ti)
	}
	if _, err := dec.Token(); err != nil {
		return nil, formatErrorf(path, "", "malformed header JSON: %w", err)
	}
	if rest := header[dec.InputOffset():]; len(bytes.TrimLeft(rest, " \t\r\n")) != 0 {
		return nil, formatErrorf(path, "", "malformed header JSON: data after the header object")
	}
	if err := validateLayout(sf.tensors, dataSize, path); err != nil {
		return nil, err
	}
	return sf, nil
}

// parseTensorEntry parses {"dtype": ..., "shape": [...], "data_offsets": [begin, end]} and checks it on its own.
func parseTensorEntry(raw json.RawMessage, name, path string) (TensorInfo, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return TensorInfo{}, formatErrorf(path, name, "malformed entry: want an object with dtype, shape and data_offsets")
	}
	var (
		dt      string
		shape   []int64
		offsets []int64
	)
	for _, f := range []struct {
		key string
		v   any
	}{{"dtype", &dt}, {"shape", &shape}, {"data_offsets", &offsets}} {
		v, ok := fields[f.key]
		if !ok {
			return TensorInfo{}, formatErrorf(path, name, "missing %s", f.key)
		}
		if err := json.Unmarshal(v, f.v); err != nil {
			return TensorInfo{}, formatErrorf(path, name, "malformed %s %s", f.key, v)
		}
	}
	if shape == nil {
		return TensorInfo{}, formatErrorf(path, name, "malformed shape null")
	}
	ti := TensorInfo{Name: name, DType: DType(dt), File: path, Shape: make([]int, len(shape))}
	if !ti.DType.Valid() {
		return TensorInfo{}, formatErrorf(path, name, "unknown dtype %q", dt)
	}
	for i, d := range shape {
		if d < 0 || d > math.MaxInt {
			return TensorInfo{}, formatErrorf(path, name, "invalid dimension %d in shape %v", d, shape)
		}
		ti.Shape[i] = int(d)
	}
	if len(offsets) != 2 {
		return TensorInfo{}, formatErrorf(path, name, "data_offsets %v: want [begin, end]", offsets)
	}
	begin, end := offsets[0], offsets[1]
	if begin < 0 || end < begin {
		return TensorInfo{}, formatErrorf(path, name, "invalid data_offsets [%d, %d]", begin, end)
	}
	n, err := numElements(ti.Shape)
	if err != nil {
		return TensorInfo{}, formatErrorf(path, name, "%w", err)
	}
	want, err := byteSize(ti.DType, n)
	if err != nil {
		return TensorInfo{}, formatErrorf(path, name, "%w", err)
	}
	if want != end-begin {
		// A dtype no conversion reads, with the sizes of another (an F8
		// relabelled F32): its dtype is what to fix first.
		unsupported := ""
		if !ti.DType.convertible() {
			unsupported = fmt.Sprintf("unsupported dtype %s (gasp converts F32, BF16 and F16 only): ", ti.DType)
		}
		return TensorInfo{}, formatErrorf(path, name, "%sshape %v of %s needs %d bytes but data_offsets [%d, %d] hold %d",
			unsupported, ti.Shape, ti.DType, want, begin, end, end-begin)
	}
	ti.Offset, ti.Size = begin, end-begin
	return ti, nil
}

// validateLayout checks that the tensors (offsets relative to the data buffer) lie within the buffer, do not
// overlap and cover it exactly, as the reference implementation requires.
func validateLayout(tensors []TensorInfo, dataSize int64, path string) error {
	for _, ti := range tensors {
		if ti.Offset+ti.Size > dataSize {
			return formatErrorf(path, ti.Name, "data_offsets [%d, %d] exceed the data buffer of %d bytes (truncated file?)",
				ti.Offset, ti.Offset+ti.Size, dataSize)
		}
	}
	sorted := slices.Clone(tensors)
	slices.SortFunc(sorted, func(a, b TensorInfo) int {
		if a.Offset != b.Offset {
			return cmp.Compare(a.Offset, b.Offset)
		}
		if a.Size != b.Size {
			return cmp.Compare(a.Size, b.Size)
		}
		return strings.Compare(a.Name, b.Name)
	})
	pos, prev := int64(0), ""
	for _, ti := range sorted {
		switch {
		case ti.Offset < pos:
			return formatErrorf(path, ti.Name, "data_offsets [%d, %d] overlap tensor %q", ti.Offset, ti.Offset+ti.Size, prev)
		case ti.Offset > pos:
			return formatErrorf(path, ti.Name, "gap of %d bytes before data_offsets [%d, %d] not covered by any tensor",
				ti.Offset-pos, ti.Offset, ti.Offset+ti.Size)
		}
		pos, prev = ti.Offset+ti.Size, ti.Name
	}
	if pos != dataSize {
		return formatErrorf(path, "", "data buffer has %d bytes but the tensors cover only %d (%d trailing bytes)",
			dataSize, pos, dataSize-pos)
	}
	return nil
}

// shardIndex is the content of model.safetensors.index.json.
type shardIndex struct {
	Metadata  map[string]json.RawMessage `json:"metadata"`
	WeightMap map[string]string          `json:"weight_map"`
}

// readShardIndex reads an index file and returns it with the sorted list of distinct shard file names, each
// checked to be a plain relative path inside the index's directory.
func readShardIndex(path string) (*shardIndex, []string, error) {
	var idx shardIndex
	if err := ReadJSON(filepath.Dir(path), filepath.Base(path), &idx); err != nil {
		return nil, nil, err
	}
	if len(idx.WeightMap) == 0 {
		return nil, nil, formatErrorf(path, "", "index has no weight_map entries")
	}
	set := make(map[string]bool)
	for name, shard := range idx.WeightMap {
		if !filepath.IsLocal(shard) || strings.Contains(shard, `\`) {
			return nil, nil, formatErrorf(path, name, "invalid shard file name %q", shard)
		}
		set[shard] = true
	}
	shards := make([]string, 0, len(set))
	for s := range set {
		shards = append(shards, s)
	}
	sort.Strings(shards)
	return &idx, shards, nil
}

func openIndex(path string) (_ *Checkpoint, err error) {
	idx, shards, err := readShardIndex(path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	files := make([]*stFile, 0, len(shards))
	defer func() {
		if err != nil {
			for _, f := range files {
				f.closer.Close()
			}
		}
	}()
	byShard := make(map[string]*stFile, len(shards))
	for _, s := range shards {
		p := filepath.Join(dir, filepath.FromSlash(s))
		if _, err := os.Stat(p); err != nil {
			return nil, formatErrorf(path, "", "index references missing shard %s: %w", s, err)
		}
		sf, err := openSTFile(p)
		if err != nil {
			return nil, err
		}
		files = append(files, sf)
		byShard[s] = sf
	}
	c := newCheckpoint(files)
	for _, s := range shards {
		for _, ti := range byShard[s].tensors {
			if other, dup := c.tensors[ti.Name]; dup {
				return nil, formatErrorf(path, ti.Name, "in two shards, %s and %s", other.File, ti.File)
			}
			c.tensors[ti.Name] = ti
		}
	}
	names := make([]string, 0, len(idx.WeightMap))
	for name := range idx.WeightMap {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		shard := idx.WeightMap[name]
		ti, ok := c.tensors[name]
		if !ok || ti.File != byShard[shard].path {
			return nil, formatErrorf(path, name, "listed in the index for shard %s but not in that shard", shard)
		}
	}
	c.metadata = make(map[string]string, len(idx.Metadata))
	for k, v := range idx.Metadata {
		var s string
		if json.Unmarshal(v, &s) == nil {
			c.metadata[k] = s
		} else {
			c.metadata[k] = string(v)
		}
	}
	c.finish()
	return c, nil
}
