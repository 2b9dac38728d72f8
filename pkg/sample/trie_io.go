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

// trieMagic starts a saved Trie.
const trieMagic = "gasp-trie 1\n"

// maxTrieDepth bounds the depth of a trie read back (a completion is at
// most a few thousand tokens).
const maxTrieDepth = 1 << 16

// WriteTo writes the trie in a compact binary form that ReadTrie reads:
// the magic line, then the nodes in preorder, each as a flags byte, P of
// its token and the masked mass (float64, little-endian), the number of
// children (uvarint) and, per child in increasing token order, its token
// (uvarint) and the child.
func (t *Trie) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	cw := &countWriter{w: bw}
	io.WriteString(cw, trieMagic)
	var buf []byte
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
	if _, err := io.ReadFull(cr, magic); err != nil || string(magic) != trieMagic {
		return nil, errors.New("sample: not a saved trie (bad magic line at offset 0)")
	}
	t := &Trie{}
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

func (t *Trie) readNode(cr *countReader, depth int) (*trieNode, error) {
	bad := func(what string) error {
		return fmt.Errorf("sample: saved trie: %s at offset %d", what, cr.n)
	}
	if depth > maxTrieDepth {
		return nil, bad("nodes nested too deep")
	}
	var hdr [17]byte
	if _, err := io.ReadFull(cr, hdr[:]); err != nil {
		return nil, bad("truncated node")
	}
	if hdr[0]&^3 != 0 {
		return nil, bad("unknown node flags")
	}
	u := &trieNode{fixed: hdr[0]&1 != 0, known: hdr[0]&2 != 0}
	u.p = math.Float64frombits(binary.LittleEndian.Uint64(hdr[1:]))
	u.masked = math.Float64frombits(binary.LittleEndian.Uint64(hdr[9:]))
	if !(u.p >= 0 && u.p <= 1) || !(u.masked >= 0 && u.masked <= 1) {
		return nil, bad("probability outside [0, 1]")
	}
	n, err := binary.ReadUvarint(cr)
	if err != nil || n > math.MaxInt32 {
		return nil, bad("bad child count")
	}
	t.nodes++
	last := -1
	for range n {
		tok, err := binary.ReadUvarint(cr)
		if err != nil || tok > math.MaxInt32 || int(tok) <= last {
			return nil, bad("bad or unordered child token")
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
