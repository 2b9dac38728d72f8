package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gasplab/gasp/pkg/infile"
)

// maxID bounds the token ids that Parse accepts, so that a malformed file
// cannot make it allocate without limit.
const maxID = 1<<22 - 1

// MaxFileBytes bounds a tokenizer.json: Llama 3's has 9 MB.
const MaxFileBytes = 256 << 20

// Load reads a Hugging Face tokenizer.json, a regular file of at most
// MaxFileBytes. See Parse.
func Load(path string) (*Tokenizer, error) {
	data, err := infile.Read(path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// tokenizerJSON is the part of tokenizer.json that Parse reads.
type tokenizerJSON struct {
	AddedTokens   []addedTokenJSON `json:"added_tokens"`
	Normalizer    json.RawMessage  `json:"normalizer"`
	PreTokenizer  json.RawMessage  `json:"pre_tokenizer"`
	PostProcessor json.RawMessage  `json:"post_processor"`
	Decoder       json.RawMessage  `json:"decoder"`
	Model         rawJSON          `json:"model"`
}

type addedTokenJSON struct {
	ID         *int   `json:"id"`
	Content    string `json:"content"`
	Special    bool   `json:"special"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
}

type modelJSON struct {
	Type                    string   `json:"type"`
	Dropout                 *float64 `json:"dropout"`
	ContinuingSubwordPrefix *string  `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string  `json:"end_of_word_suffix"`
	IgnoreMerges            bool     `json:"ignore_merges"`
	ByteFallback            bool     `json:"byte_fallback"`
	UnkToken                *string  `json:"unk_token"`
	FuseUnk                 bool     `json:"fuse_unk"`
	Vocab                   rawJSON  `json:"vocab"`
	Merges                  rawJSON  `json:"merges"`
}

// step is one normalizer, pre-tokenizer, post-processor or decoder
// description: a type and its fields (of the types that Parse supports).
type step struct {
	Type          string            `json:"type"`
	Pretokenizers []json.RawMessage `json:"pretokenizers"`
	Processors    []json.RawMessage `json:"processors"`
	Normalizers   []json.RawMessage `json:"normalizers"`
	Decoders      []json.RawMessage `json:"decoders"`
	// Split, Replace.
	Pattern  *struct{ Regex, String *string } `json:"pattern"`
	Behavior string                           `json:"behavior"`
	Invert   bool                             `json:"invert"`
	Content  *string                          `json:"content"` // Replace; Strip (a one-character string)
	// ByteLevel; Metaspace (older files).
	AddPrefixSpace *bool `json:"add_prefix_space"`
	UseRegex       *bool `json:"use_regex"`
	// Metaspace.
	Replacement   *string `json:"replacement"`
	PrependScheme *string `json:"prepend_scheme"`
	SplitPieces   *bool   `json:"split"`
	// Prepend.
	Prepend *string `json:"prepend"`
	// Strip.
	Start int `json:"start"`
	Stop  int `json:"stop"`
	// TemplateProcessing.
	Single        []templatePiece                `json:"single"`
	SpecialTokens map[string]struct{ IDs []int } `json:"special_tokens"`
}

type templatePiece struct {
	SpecialToken *struct{ ID string } `json:"SpecialToken"`
	Sequence     *struct{ ID string } `json:"Sequence"`
}

// Parse parses the contents of a Hugging Face tokenizer.json of a BPE
// model of either Kind. It supports:
//
//   - model: type BPE with vocab, merges (as "a b" strings or ["a", "b"]
//     pairs), ignore_merges; byte-level: a token for each of the 256
//     bytes; SentencePiece: byte_fallback, unk_token, fuse_unk; no dropout,
//     continuing_subword_prefix or end_of_word_suffix;
//   - normalizer: null, NFC, NFD, NFKC, NFKD, Lowercase, Replace (string
//     pattern), Prepend, or a Sequence of these;
//   - pre_tokenizer: null, Split (see below), ByteLevel (add_prefix_space,
//     use_regex: GPT-2's pattern), Metaspace, or a Sequence of these. A
//     Split's regex is translated to Go's regexp (\s as Unicode White_Space,
//     as in Oniguruma, which Hugging Face uses); the one lookahead it may
//     have is a final |\s+(?!\S)|\s+, which a scanner implements; all five
//     behaviors and invert;
//   - post_processor: null, ByteLevel, TemplateProcessing (its single
//     template) or a Sequence of these;
//   - decoder: ByteLevel; Metaspace; a Sequence of Replace, ByteFallback,
//     Fuse and Strip (of spaces at the start);
//   - added_tokens without lstrip, rstrip or single_word.
//
// For anything else it returns an error that names what is unsupported; for
// malformed JSON, an error with its line and column. It never panics.
func Parse(data []byte) (*Tokenizer, error) {
	f, err := readFile(data)
	if err != nil {
		return nil, err
	}
	if err := checkModel(&f.model); err != nil {
		return nil, err
	}
	v, err := f.vocabulary()
	if err != nil {
		return nil, err
	}
	t := &Tokenizer{Vocabulary: v, ignoreMerges: f.model.IgnoreMerges, unk: -1, fuseUnk: f.model.FuseUnk, bos: -1, eos: -1, cache: newCache()}
	if t.norm, err = parseNormalizer(data, f.file.Normalizer, 0); err != nil {
		return nil, err
	}
	if t.pre, err = parsePreTokenizer(data, f.file.PreTokenizer, 0); err != nil {
		return nil, err
	}
	if f.kind == ByteLevel && !hasStep(f.file.PreTokenizer, "ByteLevel") {
		return nil, fmt.Errorf("unsupported pre_tokenizer %s of a byte-level tokenizer: want a ByteLevel step", describe(f.file.PreTokenizer))
	}
	if err := t.parseDecoder(data, f.file.Decoder); err != nil {
		return nil, err
	}
	if err := t.indexModel(&f.model, f.file.AddedTokens); err != nil {
		return nil, err
	}
	if err := t.buildMerges(data, &f.model); err != nil {
		return nil, err
	}
	if err := t.buildPostProcessor(data, f.file.PostProcessor); err != nil {
		return nil, err
	}
	t.findBOSEOS()
	return t, nil
}

func isNull(raw json.RawMessage) bool {
	s := string(bytes.TrimSpace(raw))
	return s == "" || s == "null"
}

// describe names a JSON step by its type for an error message.
func describe(raw json.RawMessage) string {
	var s struct{ Type string }
	if json.Unmarshal(raw, &s) == nil && s.Type != "" {
		return fmt.Sprintf("%q", s.Type)
	}
	const max = 60
	if len(raw) > max {
		return string(raw[:max]) + "..."
	}
	return string(raw)
}

// parseStep decodes raw, a part of data, as a step.
func parseStep(data []byte, what string, raw json.RawMessage) (*step, error) {
	var s step
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", what, jsonErrorIn(data, raw, err))
	}
	return &s, nil
}

// maxDepth bounds the nesting of Sequence steps.
const maxDepth = 8

// parseDecoder checks the decoder and reads the spaces that its Strip or
// Metaspace step removes at the start of a decoded text.
func (t *Tokenizer) parseDecoder(data []byte, raw json.RawMessage) error {
	if isNull(raw) {
		return errors.New("unsupported decoder null: want ByteLevel, Metaspace or a Sequence of Replace, ByteFallback, Fuse and Strip")
	}
	s, err := parseStep(data, "decoder", raw)
	if err != nil {
		return err
	}
	if t.kind == ByteLevel {
		if s.Type != "ByteLevel" {
			return fmt.Errorf("unsupported decoder %s of a byte-level tokenizer: want ByteLevel", describe(raw))
		}
		return nil
	}
	steps := []*step{s}
	if s.Type == "Sequence" {
		steps = steps[:0]
		for i, r := range s.Decoders {
			d, err := parseStep(data, fmt.Sprintf("decoder.decoders[%d]", i), r)
			if err != nil {
				return err
			}
			steps = append(steps, d)
		}
	}
	fused := false
	for i, d := range steps {
		switch d.Type {
		case "Replace":
			if d.Pattern == nil || d.Pattern.String == nil || d.Content == nil {
				return fmt.Errorf("unsupported decoder step %d: Replace without a string pattern", i)
			}
		case "ByteFallback":
		case "Fuse":
			fused = true
		case "Strip":
			if d.Content == nil || *d.Content != " " || d.Stop != 0 || !fused {
				return fmt.Errorf("unsupported decoder step %d: Strip other than of leading spaces after Fuse", i)
			}
			t.stripStart = d.Start
		case "Metaspace":
			if d.metaspacePrepends() {
				t.stripStart = 1
			}
		default:
			return fmt.Errorf("unsupported decoder %q: want ByteLevel, Metaspace, Replace, ByteFallback, Fuse or Strip", d.Type)
		}
	}
	return nil
}

func checkModel(m *modelJSON) error {
	switch {
	case m.Dropout != nil && *m.Dropout != 0:
		return fmt.Errorf("unsupported model.dropout %g: want null", *m.Dropout)
	case m.ContinuingSubwordPrefix != nil && *m.ContinuingSubwordPrefix != "":
		return fmt.Errorf("unsupported model.continuing_subword_prefix %q: want null", *m.ContinuingSubwordPrefix)
	case m.EndOfWordSuffix != nil && *m.EndOfWordSuffix != "":
		return fmt.Errorf("unsupported model.end_of_word_suffix %q: want null", *m.EndOfWordSuffix)
	case isNull(json.RawMessage(m.Vocab)):
		return errors.New("model.vocab is missing")
	case isNull(json.RawMessage(m.Merges)):
		return errors.New("model.merges is missing")
	}
	return nil
}

// indexModel builds the lookup tables of the model tokens and the added
// tokens.
func (t *Tokenizer) indexModel(m *modelJSON, added []addedTokenJSON) error {
	n := 0
	for _, f := range t.flags {
		if f&kindModel != 0 {
			n++
		}
	}
	t.byName = make(map[string]int32, n)
	if t.kind == ByteLevel {
		t.byBytes = make(map[string]int32, n)
	}
	for id, f := range t.flags {
		if f&kindModel == 0 {
			continue
		}
		name := t.names[id]
		if _, dup := t.byName[name]; dup {
			return fmt.Errorf("model.vocab: token %q appears twice", name)
		}
		t.byName[name] = int32(id)
		if t.byBytes != nil {
			if _, ok := appendByteLevelDecode(nil, name); ok {
				if _, dup := t.byBytes[string(t.tokens[id])]; dup {
					return fmt.Errorf("model.vocab: token %q appears twice", name)
				}
				t.byBytes[string(t.tokens[id])] = int32(id)
			}
		}
	}
	if err := t.findByteTokens(m); err != nil {
		return err
	}
	t.addedIDs = make(map[string]int, len(added))
	for _, a := range added {
		t.addedIDs[a.Content] = *a.ID
		if a.Normalized && !a.Special {
			t.addedNorm.add(a.Content, *a.ID, a.Special)
		} else {
			t.addedRaw.add(a.Content, *a.ID, a.Special)
		}
	}
	return nil
}

// findByteTokens fills byteIDs: a byte-level model's token of each byte,
// all of which it must have, or a SentencePiece model's byte-fallback
// tokens (-1 for a byte without one); and the unknown token.
func (t *Tokenizer) findByteTokens(m *modelJSON) error {
	for b := range 256 {
		t.byteIDs[b] = -1
		if t.kind == ByteLevel {
			id, ok := t.byBytes[string([]byte{byte(b)})]
			if !ok {
				return fmt.Errorf("model.vocab has no token %q for byte 0x%02x: not a byte-level vocabulary", string(byteToRune[b]), b)
			}
			t.byteIDs[b] = id
		} else if m.ByteFallback {
			if id, ok := t.byName[ByteFallbackName(byte(b))]; ok {
				t.byteIDs[b] = id
			}
		}
	}
	t.byteFallback = m.ByteFallback
	if m.UnkToken != nil && t.kind == SentencePiece {
		id, ok := t.byName[*m.UnkToken]
		if !ok {
			return fmt.Errorf("model.unk_token %q is not in model.vocab", *m.UnkToken)
		}
		t.unk = id
	}
	return nil
}

// A vocabEntry is one token of model.vocab: its name in tokenizer.json and
// its id.
type vocabEntry struct {
	name string
	id   int
}

// readVocab returns the entries of model.vocab, in the file's order, and the
// size of the id range they need.
func readVocab(data []byte, m *modelJSON) (entries []vocabEntry, size int, err error) {
	err = newJSONReader(data, m.Vocab).object(func(name string, id int) error {
		entries = append(entries, vocabEntry{name, id})
		size = max(size, id+1)
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("model.vocab: %w", err)
	}
	return entries, size, nil
}

// checkAdded checks the added tokens and returns the size of the id range
// that they and a vocab of size ids need.
func checkAdded(added []addedTokenJSON, size int) (int, error) {
	for i, a := range added {
		switch {
		case a.ID == nil:
			return 0, fmt.Errorf("added_tokens[%d] %q: no id", i, a.Content)
		case *a.ID < 0 || *a.ID > maxID:
			return 0, fmt.Errorf("added_tokens[%d] %q: id %d out of range [0, %d]", i, a.Content, *a.ID, maxID)
		case a.Content == "":
			return 0, fmt.Errorf("added_tokens[%d] (id %d): empty content", i, *a.ID)
		case a.LStrip || a.RStrip || a.SingleWord:
			return 0, fmt.Errorf("added_tokens[%d] %q: unsupported lstrip, rstrip or single_word", i, a.Content)
		}
		size = max(size, *a.ID+1)
	}
	return size, nil
}

// buildMerges reads the merges, in either form, into t.merges.
func (t *Tokenizer) buildMerges(data []byte, m *modelJSON) error {
	t.merges = make(map[uint64]uint64, 1<<18)
	t.bytePairs = make([]uint64, 1<<16)
	for i := range t.bytePairs {
		t.bytePairs[i] = noMerge
	}
	rank := 0
	var buf []byte
	err := newJSONReader(data, m.Merges).merges(func(a, b string) error {
		idA, ok := t.byName[a]
		if !ok {
			return fmt.Errorf("merge %d: token %q is not in the vocab", rank, a)
		}
		idB, ok := t.byName[b]
		if !ok {
			return fmt.Errorf("merge %d: token %q is not in the vocab", rank, b)
		}
		buf = append(append(buf[:0], a...), b...)
		idAB, ok := t.byName[string(buf)]
		if !ok {
			return fmt.Errorf("merge %d: merged token %q is not in the vocab", rank, buf)
		}
		// A later duplicate overrides an earlier one, as in HF.
		v := uint64(rank)<<32 | uint64(idAB)
		t.merges[pairKey(idA, idB)] = v
		if t.kind == ByteLevel && len(t.tokens[idA]) == 1 && len(t.tokens[idB]) == 1 && t.byteIDs[t.tokens[idA][0]] == idA && t.byteIDs[t.tokens[idB][0]] == idB {
			t.bytePairs[int(t.tokens[idA][0])<<8|int(t.tokens[idB][0])] = v
		}
		rank++
		return nil
	})
	if err != nil {
		return fmt.Errorf("model.merges: %w", err)
	}
	return nil
}

// buildPostProcessor reads the single-sequence template of a
// TemplateProcessing, alone or in a Sequence; ByteLevel steps leave ids
// alone.
func (t *Tokenizer) buildPostProcessor(data []byte, raw json.RawMessage) error {
	if isNull(raw) {
		return nil
	}
	s, err := parseStep(data, "post_processor", raw)
	if err != nil {
		return err
	}
	steps := []*step{s}
	if s.Type == "Sequence" {
		steps = steps[:0]
		for i, r := range s.Processors {
			p, err := parseStep(data, fmt.Sprintf("post_processor.processors[%d]", i), r)
			if err != nil {
				return err
			}
			steps = append(steps, p)
		}
	}
	for _, p := range steps {
		switch p.Type {
		case "ByteLevel":
		case "TemplateProcessing":
			if t.template {
				return errors.New("unsupported post_processor: more than one TemplateProcessing")
			}
			if err := t.readTemplate(p); err != nil {
				return fmt.Errorf("post_processor TemplateProcessing: %w", err)
			}
		default:
			return fmt.Errorf("unsupported post_processor %q: want ByteLevel, TemplateProcessing or a Sequence of them", p.Type)
		}
	}
	return nil
}

func (t *Tokenizer) readTemplate(p *step) error {
	t.template = true
	seen := false
	for i, piece := range p.Single {
		switch {
		case piece.Sequence != nil:
			if piece.Sequence.ID != "A" || seen {
				return fmt.Errorf("single[%d]: unsupported sequence %q (want one $A)", i, piece.Sequence.ID)
			}
			seen = true
		case piece.SpecialToken != nil:
			name := piece.SpecialToken.ID
			st, ok := p.SpecialTokens[name]
			if !ok {
				return fmt.Errorf("single[%d]: special token %q is not in special_tokens", i, name)
			}
			for _, id := range st.IDs {
				if id < 0 || id >= len(t.tokens) {
					return fmt.Errorf("special token %q: id %d out of range", name, id)
				}
			}
			if seen {
				t.suffix = append(t.suffix, st.IDs...)
			} else {
				t.prefix = append(t.prefix, st.IDs...)
			}
		default:
			return fmt.Errorf("single[%d]: want SpecialToken or Sequence", i)
		}
	}
	if !seen {
		return errors.New("single template has no $A")
	}
	return nil
}

// jsonErrorIn is jsonError for an error in sub, a part of data copied from
// it: the position is found in data.
func jsonErrorIn(data, sub []byte, err error) error {
	base := bytes.Index(data, sub)
	if base < 0 {
		return jsonError(sub, err)
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return jsonErrorAt(data, int64(base)+syn.Offset, err)
	case errors.As(err, &typ):
		return jsonErrorAt(data, int64(base)+typ.Offset, err)
	}
	return jsonError(sub, err)
}

// jsonError adds the line and column of a JSON syntax or type error in data.
func jsonError(data []byte, err error) error {
	var off int64
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	default:
		return fmt.Errorf("invalid JSON: %w", err)
	}
	return jsonErrorAt(data, off, err)
}

func jsonErrorAt(data []byte, off int64, err error) error {
	// Offset counts the bytes read when the error was found: the error is
	// at the last of them.
	i := int(min(max(off-1, 0), int64(len(data))))
	line := 1 + bytes.Count(data[:i], []byte("\n"))
	col := i - bytes.LastIndexByte(data[:i], '\n')
	return fmt.Errorf("invalid JSON at line %d, column %d: %w", line, col, err)
}
