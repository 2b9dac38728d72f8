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

// The magic lines that start a saved Trie. Version 3 holds each node's
// alive mass in log space, which a small temperature needs; versions 1
// and 2 held P of each node's token and its grammar-excluded mass, linear,
// from which ReadTrie computes it (version 2 also records what the trie
// was learnt under, Trie.Under; version 1 does not). WriteTo writes
// version 3.
const (
	trieMagic      = "gasp-trie 1\n"
	trieMagicUnder = "gasp-trie 2\n"
	trieMagicLog   = "gasp-trie 3\n"
)

// maxTrieUnder bounds the length of Trie.Under read back.
const maxTrieUnder = 1 << 16

// maxTrieDepth bounds the depth of a trie read back (a completion is at
// most a few thousand tokens).
const maxTrieDepth = 1 << 16

// WriteTo writes the trie in a compact binary form that ReadTrie reads:
// the magic line, Under (its length as a uvarint, then its bytes), then
// the nodes in preorder, each as a flags byte, log alive (float64,
// little-endian), the number of children (uvarint) and, per child in
// increasing token order, its token (uvarint) and the child.
func (t *Trie) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	cw := &countWriter{w: bw}
	var buf []byte
	io.WriteString(cw, trieMagicLog)
	cw.Write(binary.AppendUvarint(buf, uint64(len(t.Under))))
	io.WriteString(cw, t.Under)
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
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(u.logAlive))
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

// ReadTrie reads a trie written by Trie.WriteTo, in any of its versions.
// A malformed input is an error that names the byte offset where it went
// wrong.
func ReadTrie(r io.Reader) (*Trie, error) {
	cr := &countReader{r: bufio.NewReader(r)}
	magic := make([]byte, len(trieMagic))
	version := 0
	if _, err := io.ReadFull(cr, magic); err == nil {
		version = map[string]int{trieMagic: 1, trieMagicUnder: 2, trieMagicLog: 3}[string(magic)]
	}
	if version == 0 {
		return nil, errors.New("sample: not a saved trie (bad magic line at offset 0)")
	}
	t := &Trie{}
	if version >= 2 {
		under, err := readUnder(cr, version == 3)
		if err != nil {
			return nil, err
		}
		t.Under = under
	}
	var err error
	if version == 3 {
		t.root, err = t.readNode(cr, 0)
	} else {
		t.root, _, err = t.readLinearNode(cr, 0)
	}
	if err != nil {
		return nil, err
	}
	if _, err := cr.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("sample: saved trie: trailing data at offset %d", cr.n-1)
	}
	return t, nil
}

// readUnder reads Trie.Under: its length, then its bytes; empty only if
// allowed.
func readUnder(cr *countReader, empty bool) (string, error) {
	at := cr.n
	n, err := binary.ReadUvarint(cr)
	if err != nil || n == 0 && !empty || n > maxTrieUnder {
		return "", fmt.Errorf("sample: saved trie: bad length of its settings at offset %d", at)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(cr, b); err != nil {
		return "", fmt.Errorf("sample: saved trie: settings cut short at offset %d", at)
	}
	return string(b), nil
}

// trieBad is a malformed saved trie's error: what, at byte offset off.
func trieBad(what string, off int64) error {
	return fmt.Errorf("sample: saved trie: %s at offset %d", what, off)
}

// readNode reads a version 3 node and its children. Each error names the
// offset of the field at fault, where a reader of the file looks for it.
func (t *Trie) readNode(cr *countReader, depth int) (*trieNode, error) {
	at := cr.n
	if depth > maxTrieDepth {
		return nil, trieBad("nodes nested too deep", at)
	}
	var hdr [9]byte
	if _, err := io.ReadFull(cr, hdr[:]); err != nil {
		return nil, trieBad("truncated node", at)
	}
	if hdr[0]&^3 != 0 {
		return nil, trieBad("unknown node flags", at)
	}
	u := &trieNode{fixed: hdr[0]&1 != 0, known: hdr[0]&2 != 0}
	u.logAlive = math.Float64frombits(binary.LittleEndian.Uint64(hdr[1:]))
	if !(u.logAlive <= 0) || u.fixed && !math.IsInf(u.logAlive, -1) {
		return nil, trieBad("log-probability above 0, NaN, or finite for an invalid prefix", at+1)
	}
	err := t.readKids(cr, func(tok int) error {
		kid, err := t.readNode(cr, depth+1)
		u.setKid(tok, kid)
		return err
	})
	return u, err
}

// readLinearNode reads a version 1 or 2 node and its children, and
// returns it with P of its token, its alive mass computed as the samplers
// of those versions did: 1 − dead, dead being the sum over its children of
// P·dead, plus its grammar-excluded mass once known, 1 if fixed.
func (t *Trie) readLinearNode(cr *countReader, depth int) (u *trieNode, p float64, err error) {
	at := cr.n
	if depth > maxTrieDepth {
		return nil, 0, trieBad("nodes nested too deep", at)
	}
	var hdr [17]byte
	if _, err := io.ReadFull(cr, hdr[:]); err != nil {
		return nil, 0, trieBad("truncated node", at)
	}
	if hdr[0]&^3 != 0 {
		return nil, 0, trieBad("unknown node flags", at)
	}
	u = &trieNode{fixed: hdr[0]&1 != 0, known: hdr[0]&2 != 0}
	p = math.Float64frombits(binary.LittleEndian.Uint64(hdr[1:]))
	masked := math.Float64frombits(binary.LittleEndian.Uint64(hdr[9:]))
	if !(p >= 0 && p <= 1) {
		return nil, 0, trieBad("probability outside [0, 1]", at+1)
	}
	if !(masked >= 0 && masked <= 1) {
		return nil, 0, trieBad("probability outside [0, 1]", at+9)
	}
	dead := 0.0
	if u.known {
		dead = masked
	}
	err = t.readKids(cr, func(tok int) error {
		kid, kp, err := t.readLinearNode(cr, depth+1)
		if err == nil {
			u.setKid(tok, kid)
			dead += kp * -math.Expm1(kid.logAlive)
		}
		return err
	})
	if u.fixed {
		dead = 1
	}
	u.logAlive = math.Log1p(-min(1, max(0, dead)))
	return u, p, err
}

// readKids reads a node's child count, then each child's token, checked
// to increase, followed by the child that kid reads.
func (t *Trie) readKids(cr *countReader, kid func(tok int) error) error {
	at := cr.n
	n, err := binary.ReadUvarint(cr)
	if err != nil || n > math.MaxInt32 {
		return trieBad("bad child count", at)
	}
	t.nodes++
	last := -1
	for range n {
		at = cr.n
		tok, err := binary.ReadUvarint(cr)
		if err != nil || tok > math.MaxInt32 || int(tok) <= last {
			return trieBad("bad or unordered child token", at)
		}
		last = int(tok)
		if err := kid(last); err != nil {
			return err
		}
	}
	return nil
}

// setKid makes kid u's child by tok.
func (u *trieNode) setKid(tok int, kid *trieNode) {
	if u.kids == nil {
		u.kids = make(map[int]*trieNode)
	}
	u.kids[tok] = kid
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
