package runs

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gasplab/gasp/pkg/atomicfile"
)

// A series is kept in up to two segments: the open one, <method>.jsonl,
// which Append appends to, and the sealed one, <method>.jsonl.gz, which
// Compact writes and nothing appends to. Readers read the sealed records,
// then the open ones; a (k, run) is in one of them only.
//
// Compact moves a series' open records into its sealed segment in two
// steps, each atomic: it writes the new sealed segment (the old one's
// records, then the open ones) beside it and renames it into place, then
// removes the open segment. A compaction killed between the two leaves an
// open segment whose records the sealed one holds as well. The sealed
// segment's gzip header says which open segment it absorbed last (its
// length and SHA-256, in the header's comment), so that readers skip such
// a leftover and a writer removes it: no record is lost or read twice,
// wherever the compaction is killed.

// absorbedPrefix begins the gzip comment of a sealed segment.
const absorbedPrefix = "gasp run store: absorbed "

// absorbedComment is the comment of a sealed segment whose last absorbed
// open segment had size bytes with the given SHA-256.
func absorbedComment(size int64, sum []byte) string {
	return fmt.Sprintf("%s%d bytes, sha256 %s", absorbedPrefix, size, hex.EncodeToString(sum))
}

// absorbed reports whether the open segment f is the one that the sealed
// segment with gzip comment comment absorbed last.
func absorbed(comment string, f *os.File) (bool, error) {
	rest, ok := strings.CutPrefix(comment, absorbedPrefix)
	if !ok {
		return false, nil
	}
	sizeStr, sum, ok := strings.Cut(rest, " bytes, sha256 ")
	size, err := strconv.ParseInt(sizeStr, 10, 64)
	if !ok || err != nil {
		return false, nil
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() != size {
		return false, err
	}
	h, err := hashPrefix(f, size)
	if err != nil {
		return false, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return false, err
	}
	return hex.EncodeToString(h) == sum, nil
}

// hashPrefix returns the SHA-256 of the first n bytes of f.
func hashPrefix(f *os.File, n int64) ([]byte, error) {
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, n)); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// CompactStats says what Compact did.
type CompactStats struct {
	Series int   // series whose open records were sealed
	Before int64 // bytes of their segments before
	After  int64 // bytes of their sealed segments after
}

// ErrBusy is returned by Compact when another process is writing the
// store (runs.Writing: a shard of "gasp experiment run" between appends).
var ErrBusy = errors.New("runs: store is being written by another process")

// Compact seals the records of every series of the store: it moves them
// from the open segment (<method>.jsonl) into the sealed, gzip-compressed
// one (<method>.jsonl.gz), so that a finished store takes a tenth of the
// space or less. Readers and writers see the same records before and
// after; a later Append starts a new open segment. Compact needs a store
// opened for appending (Open), and fails with ErrBusy while another
// process writes it, such as a shard of an experiment run between its
// appends. It may be killed at any moment without losing or duplicating a
// record (see above); it drops torn last lines, as Open would.
func (s *Store) Compact() (CompactStats, error) {
	var stats CompactStats
	if s.opt.ReadOnly {
		return stats, ErrReadOnly
	}
	if s.file != "" {
		return stats, fmt.Errorf("runs: %s is a store of one file; only a directory store is compacted", s.file)
	}
	keys, err := s.Keys()
	if err != nil {
		return stats, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.sync(); err != nil {
		return stats, err
	}
	if err := exclusive(s.writing, s.dir); err != nil {
		return stats, err
	}
	defer shared(s.writing)
	for _, k := range keys {
		sr, err := s.get(k.Task, k.Method)
		if err != nil {
			return stats, err
		}
		before, after, err := seal(k, sr)
		if err != nil {
			return stats, err
		}
		if after > 0 {
			stats.Series++
			stats.Before += before
			stats.After += after
		}
	}
	return stats, nil
}

// seal moves the open records of sr, the series k, into its sealed segment and returns
// the segments' sizes before and after (0, 0 when it has no open record).
func seal(k Key, sr *series) (before, after int64, err error) {
	if sr.f != nil {
		if err := sr.f.Close(); err != nil {
			return 0, 0, fmt.Errorf("runs: %w", err)
		}
		sr.f = nil
	}
	if sr.good == 0 {
		return 0, 0, removeEmpty(sr.path)
	}
	removeTemps(sr.sealed)
	open, err := os.Open(sr.path)
	if err != nil {
		return 0, 0, fmt.Errorf("runs: %w", err)
	}
	defer open.Close()
	sum, err := hashPrefix(open, sr.good)
	if err != nil {
		return 0, 0, fmt.Errorf("runs: reading %s: %w", sr.path, err)
	}
	before = sr.good
	if fi, err := os.Stat(sr.sealed); err == nil {
		before += fi.Size()
	}
	err = atomicfile.Write(sr.sealed, func(w io.Writer) error {
		zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
		if err != nil {
			return err
		}
		zw.Comment = absorbedComment(sr.good, sum)
		if err := copySealed(zw, sr.sealed); err != nil {
			return err
		}
		if _, err := io.Copy(zw, io.NewSectionReader(open, 0, sr.good)); err != nil {
			return err
		}
		return zw.Close()
	})
	if err != nil {
		return 0, 0, fmt.Errorf("runs: sealing %s: %w", sr.path, err)
	}
	// The sealed segment is in place, and readers now skip the open one.
	if err := checkSealed(k, sr); err != nil {
		return 0, 0, err
	}
	if err := os.Remove(sr.path); err != nil {
		return 0, 0, fmt.Errorf("runs: %w", err)
	}
	syncDir(filepath.Dir(sr.path))
	sr.good, sr.prompt, sr.hasSeal = 0, nil, true
	fi, err := os.Stat(sr.sealed)
	if err != nil {
		return 0, 0, fmt.Errorf("runs: %w", err)
	}
	return before, fi.Size(), nil
}

// copySealed writes the records of the sealed segment path, if it exists,
// to w, uncompressed.
func copySealed(w io.Writer, path string) error {
	f, err := openSegment(path)
	if err != nil || f == nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return &CorruptError{File: path, Err: fmt.Errorf("not a gzip stream: %w", err)}
	}
	if _, err := io.Copy(w, zr); err != nil {
		return &CorruptError{File: path, Err: fmt.Errorf("corrupt or truncated gzip stream: %w", err)}
	}
	return nil
}

// checkSealed reads the series back from its new sealed segment, which
// must hold exactly the records the store knows of.
func checkSealed(k Key, sr *series) error {
	n := 0
	res, err := scan(sr.path, sr.sealed, k.Task, k.Method, -1, newSettingsRule(Options{}), func(Record) error { n++; return nil })
	switch {
	case err != nil:
		return fmt.Errorf("runs: the sealed %s does not read back: %w", sr.sealed, err)
	case !res.leftover:
		return fmt.Errorf("runs: the sealed %s does not name %s as absorbed", sr.sealed, sr.path)
	case n != len(sr.done):
		return fmt.Errorf("runs: the sealed %s holds %d records, not %d", sr.sealed, n, len(sr.done))
	}
	return nil
}

// removeEmpty removes the open segment path if it exists and is empty (a
// torn only line dropped, say): the series' records are all sealed.
func removeEmpty(path string) error {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() != 0 {
		return nil
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("runs: %w", err)
	}
	return nil
}

// removeTemps removes the temporary files a killed compaction left beside
// the sealed segment path (atomicfile names them .<name>.tmp-*).
func removeTemps(path string) {
	dir, base := filepath.Split(path)
	tmps, _ := filepath.Glob(filepath.Join(dir, "."+base+".tmp-*"))
	for _, t := range tmps {
		os.Remove(t)
	}
}
