package sample

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// The magic lines that start a saved Trie: version 2 records what the
// trie was learnt under (Trie.Under), version 1 does not. A trie with
// Under "" is saved as version 1, as it was before version 2 existed.
const (
	trieMagic      = "gasp-trie 1\n"
	trieMagicUnder = "gasp-trie 2\n"
)

// maxTrieUnder bounds the length of Trie.Under read back.
const maxTrieUnder = 1 << 16

// maxTrieDepth bounds the depth of a trie read back (a completion is at
// most a few thousand tokens).
const maxTrieDepth = 1 << 16

// WriteTo writes the trie in a compact binary form that ReadTrie reads:
// the magic line, Under (its length as a uvarint, then its bytes; version
// 2 only), then the nodes in preorder, each as a flags byte, P of
// its token and the masked mass (float64, little-endian), the number of
// children (uvarint) and, per child in increasing token order, its token
// (uvarint) and the child.
func (t *Trie) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	cw := &countWriter{w: bw}
	var buf []byte
	if t.Under == "" {
		io.WriteString(cw, trieMagic)
	} else {
		io.WriteString(cw, trieMagicUnder)
		cw.Write(binary.AppendUvarint(buf, uint64(len(t.Under))))
		io.WriteString(cw, t.Under)
	}
	var walk func(u *trieNode)
	walk = func(u *trieNode) {
		var flags byte
		if u.fixed {
			flags |= 1
		}
		if u.known {
			flags |= 2
		}
		buf = append(buf[:0], flags)
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(u.p))
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(u.masked))
		buf = binary.AppendUvarint(buf, uint64(len(u.kids)))
		cw.Write(buf)
		toks := make([]int, 0, len(u.kids))
		for tok := range u.kids {
			toks = append(toks, tok)
		}
		slices.Sort(toks)
		for _, tok := range toks {
			cw.Write(binary.AppendUvarint(buf[:0], uint64(tok)))
			walk(u.kids[tok])
		}
	}
	walk(t.root)
	if cw.err == nil {
		cw.err = bw.Flush()
	}
	return cw.n, cw.err
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

// ReadTrie reads a trie written by Trie.WriteTo. A malformed input is an
// error that names the byte offset where it went wrong.
func ReadTrie(r io.Reader) (*Trie, error) {
	cr := &countReader{r: bufio.NewReader(r)}
	magic := make([]byte, len(trieMagic))
	if _, err := io.ReadFull(cr, magic); err != nil || string(magic) != trieMagic && string(magic) != trieMagicUnder {
		return nil, errors.New("sample: not a saved trie (bad magic line at offset 0)")
	}
	t := &Trie{}
	if string(magic) == trieMagicUnder {
		under, err := readUnder(cr)
		if err != nil {
			return nil, err
		}
		t.Under = under
	}
	root, err := t.readNode(cr, 0)
	if err != nil {
		return nil, err
	}
	t.root = root
	if _, err := cr.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("sample: saved trie: trailing data at offset %d", cr.n-1)
	}
	return t, nil
}

// readUnder reads Trie.Under: its length, then its bytes.
func readUnder(cr *countReader) (string, error) {
	at := cr.n
	n, err := binary.ReadUvarint(cr)
	if err != nil || n == 0 || n > maxTrieUnder {
		return "", fmt.Errorf("sample: saved trie: bad length of its settings at offset %d", at)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(cr, b); err != nil {
		return "", fmt.Errorf("sample: saved trie: settings cut short at offset %d", at)
	}
	return string(b), nil
}

func (t *Trie) readNode(cr *countReader, depth int) (*trieNode, error) {
	// Each error names the offset of the field at fault, where a reader
	// of the file looks for it.
	at := cr.n
	bad := func(what string, off int64) error {
		return fmt.Errorf("sample: saved trie: %s at offset %d", what, off)
	}
	if depth > maxTrieDepth {
		return nil, bad("nodes nested too deep", at)
	}
	var hdr [17]byte
	if _, err := io.ReadFull(cr, hdr[:]); err != nil {
		return nil, bad("truncated node", at)
	}
	if hdr[0]&^3 != 0 {
		return nil, bad("unknown node flags", at)
	}
	u := &trieNode{fixed: hdr[0]&1 != 0, known: hdr[0]&2 != 0}
	u.p = math.Float64frombits(binary.LittleEndian.Uint64(hdr[1:]))
	u.masked = math.Float64frombits(binary.LittleEndian.Uint64(hdr[9:]))
	if !(u.p >= 0 && u.p <= 1) {
		return nil, bad("probability outside [0, 1]", at+1)
	}
	if !(u.masked >= 0 && u.masked <= 1) {
		return nil, bad("probability outside [0, 1]", at+9)
	}
	at = cr.n
	n, err := binary.ReadUvarint(cr)
	if err != nil || n > math.MaxInt32 {
		return nil, bad("bad child count", at)
	}
	t.nodes++
	last := -1
	for range n {
		at = cr.n
		tok, err := binary.ReadUvarint(cr)
		if err != nil || tok > math.MaxInt32 || int(tok) <= last {
			return nil, bad("bad or unordered child token", at)
		}
		last = int(tok)
		kid, err := t.readNode(cr, depth+1)
		if err != nil {
			return nil, err
		}
		if u.kids == nil {
			u.kids = make(map[int]*trieNode)
		}
		u.kids[last] = kid
		u.kidsum += kid.p * kid.dead
	}
	if u.fixed {
		u.dead = 1
	} else {
		u.update()
	}
	return u, nil
}

type countReader struct {
	r *bufio.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}
