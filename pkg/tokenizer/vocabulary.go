package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Kind says how a BPE model's tokenizer.json writes its tokens.
type Kind uint8

const (
	// ByteLevel models (GPT-2, Llama 3, Qwen, DeepSeek-V3) write each token
	// in GPT-2's byte-level alphabet, one character per byte ("Ġthe" is
	// " the"); the ByteLevel pre-tokenizer or decoder says so.
	ByteLevel Kind = 1 + iota
	// SentencePiece models as Hugging Face serialises them (Llama 2,
	// Mistral-7B-v0.1, Gemma) write tokens as text with "▁" (U+2581) for a
	// space; with byte_fallback, the tokens "<0x00>" … "<0xFF>" stand for
	// single bytes.
	SentencePiece
)

func (k Kind) String() string {
	switch k {
	case ByteLevel:
		return "byte-level BPE"
	case SentencePiece:
		return "SentencePiece BPE"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Kinds of token ids (Vocabulary.flags); 0 is an id that no token has.
const (
	kindModel   = 1 << iota // in model.vocab
	kindAdded               // in added_tokens
	kindSpecial             // an added token marked special
)

// A Vocabulary is the token table of a tokenizer.json: for every id, the
// bytes the token stands for, its name as the file writes it, and whether
// it is an added or special token. ParseVocabulary reads it alone (what a
// grammar mask needs); Parse reads it as part of a Tokenizer, which embeds
// it.
type Vocabulary struct {
	kind   Kind
	tokens [][]byte // by id: the bytes the token stands for (decoded)
	names  []string // by id: the token as tokenizer.json writes it ("Ġthe", "▁the", "<|eot_id|>")
	flags  []uint8  // by id: kindModel, kindAdded, kindSpecial bits
}

// ParseVocabulary reads the token table of a Hugging Face tokenizer.json of
// a BPE model of either Kind, without the merges and without checking that
// Parse supports its pipeline.
//
// A model token's bytes are its name decoded: for ByteLevel from the
// byte-level alphabet (a name outside it stands for its own UTF-8, as in
// Hugging Face's ByteLevel decoder); for SentencePiece, "<0xNN>" is byte
// NN when the model has byte_fallback, and otherwise the decoder's Replace
// steps (or Metaspace's replacement) turn "▁" into a space. An added token
// stands for its content, decoded the same way when it is written as a
// model token would be.
//
// It returns an error, never panics, for malformed JSON (with its line and
// column), a model other than BPE, a pipeline of neither kind, an empty
// token, two tokens with one id, an id out of range and an added token
// without id or content.
func ParseVocabulary(data []byte) (*Vocabulary, error) {
	f, err := readFile(data)
	if err != nil {
		return nil, err
	}
	return f.vocabulary()
}

// A parsedFile is a tokenizer.json read by encoding/json, the model's
// vocab and merges left as raw parts of data.
type parsedFile struct {
	data  []byte
	file  tokenizerJSON
	model modelJSON
	kind  Kind
}

func readFile(data []byte) (*parsedFile, error) {
	f := &parsedFile{data: data}
	if err := json.Unmarshal(data, &f.file); err != nil {
		return nil, jsonError(data, err)
	}
	if isNull(json.RawMessage(f.file.Model)) {
		return nil, errors.New("tokenizer.json has no model")
	}
	if err := json.Unmarshal(f.file.Model, &f.model); err != nil {
		return nil, fmt.Errorf("model: %w", jsonErrorIn(data, json.RawMessage(f.file.Model), err))
	}
	if f.model.Type != "BPE" {
		return nil, fmt.Errorf("unsupported model.type %q: want \"BPE\"", f.model.Type)
	}
	kind, err := f.detectKind()
	if err != nil {
		return nil, err
	}
	f.kind = kind
	return f, nil
}

// detectKind tells the two kinds apart by their pipeline steps.
func (f *parsedFile) detectKind() (Kind, error) {
	pre, dec, norm := f.file.PreTokenizer, f.file.Decoder, f.file.Normalizer
	bl := hasStep(pre, "ByteLevel") || hasStep(dec, "ByteLevel")
	sp := f.model.ByteFallback || hasStep(dec, "ByteFallback") || hasStep(pre, "Metaspace") ||
		hasStep(dec, "Metaspace") || strings.Contains(string(norm), `\u2581`) || strings.Contains(string(norm), "\u2581")
	switch {
	case bl && sp:
		return 0, errors.New("unsupported tokenizer: both byte-level (a ByteLevel step) and SentencePiece (byte_fallback, ByteFallback, Metaspace or \"▁\")")
	case bl:
		return ByteLevel, nil
	case sp:
		return SentencePiece, nil
	}
	return 0, errors.New("not a byte-level BPE tokenizer (no ByteLevel pre_tokenizer or decoder) nor a SentencePiece one (no byte_fallback, ByteFallback, Metaspace or \"▁\" normalizer)")
}

// vocabulary builds the token table.
func (f *parsedFile) vocabulary() (*Vocabulary, error) {
	if isNull(json.RawMessage(f.model.Vocab)) {
		return nil, errors.New("model.vocab is missing")
	}
	entries, size, err := readVocab(f.data, &f.model)
	if err != nil {
		return nil, err
	}
	if size, err = checkAdded(f.file.AddedTokens, size); err != nil {
		return nil, err
	}
	if size == 0 {
		return nil, errors.New("tokenizer.json has no tokens")
	}
	dec, err := f.tokenDecoder()
	if err != nil {
		return nil, err
	}
	v := &Vocabulary{kind: f.kind, tokens: make([][]byte, size), names: make([]string, size), flags: make([]uint8, size)}
	for _, e := range entries {
		if e.name == "" {
			return nil, fmt.Errorf("model.vocab: token id %d: empty token", e.id)
		}
		if v.flags[e.id] != 0 {
			return nil, fmt.Errorf("model.vocab: tokens %q and %q have the same id %d", v.names[e.id], e.name, e.id)
		}
		v.flags[e.id] = kindModel
		v.names[e.id] = e.name
		v.tokens[e.id] = dec(e.name, true)
	}
	for _, a := range f.file.AddedTokens {
		id := *a.ID
		k := uint8(kindAdded)
		if a.Special {
			k |= kindSpecial
		}
		v.flags[id] = v.flags[id]&kindModel | k
		v.names[id] = a.Content
		v.tokens[id] = dec(a.Content, false)
	}
	return v, nil
}

// tokenDecoder returns the function that gives the bytes of a token name
// (model says whether it is a model token, for byte fallback).
func (f *parsedFile) tokenDecoder() (func(name string, model bool) []byte, error) {
	if f.kind == ByteLevel {
		return func(name string, _ bool) []byte {
			if b, err := ByteLevelDecode(name); err == nil {
				return b
			}
			return []byte(name)
		}, nil
	}
	replace, err := spaceReplacements(f.data, f.file.Decoder)
	if err != nil {
		return nil, err
	}
	fallback := f.model.ByteFallback || hasStep(f.file.Decoder, "ByteFallback")
	return func(name string, model bool) []byte {
		if fallback && model {
			if b, ok := byteFallbackToken(name); ok {
				return []byte{b}
			}
		}
		return []byte(replace.Replace(name))
	}, nil
}

// byteFallbackToken reports whether name is "<0xNN>" (NN two upper-case hex
// digits, as Hugging Face's BPE writes them) and the byte it stands for.
func byteFallbackToken(name string) (byte, bool) {
	if len(name) != 6 || name[:3] != "<0x" || name[5] != '>' {
		return 0, false
	}
	var v byte
	for _, c := range []byte(name[3:5]) {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | (c - '0')
		case 'A' <= c && c <= 'F':
			v = v<<4 | (c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return v, true
}

// ByteFallbackName returns the name of the SentencePiece token of byte b,
// "<0x0A>" for '\n'.
func ByteFallbackName(b byte) string { return fmt.Sprintf("<0x%02X>", b) }

// spaceReplacements returns the string replacements of a SentencePiece
// decoder, in order: its Replace steps with string patterns and a
// Metaspace's replacement character (turned back into a space).
func spaceReplacements(data []byte, raw json.RawMessage) (*strings.Replacer, error) {
	var pairs []string
	var walk func(raw json.RawMessage, depth int) error
	walk = func(raw json.RawMessage, depth int) error {
		if isNull(raw) || depth > 8 {
			return nil
		}
		s, err := parseStep(data, "decoder", raw)
		if err != nil {
			return err
		}
		switch s.Type {
		case "Sequence":
			for _, d := range s.Decoders {
				if err := walk(d, depth+1); err != nil {
					return err
				}
			}
		case "Replace":
			if s.Pattern != nil && s.Pattern.String != nil && *s.Pattern.String != "" && s.Content != nil {
				pairs = append(pairs, *s.Pattern.String, *s.Content)
			}
		case "Metaspace":
			pairs = append(pairs, s.metaspaceReplacement(), " ")
		}
		return nil
	}
	if err := walk(raw, 0); err != nil {
		return nil, err
	}
	return strings.NewReplacer(pairs...), nil
}

// Kind returns how the tokenizer writes its tokens.
func (v *Vocabulary) Kind() Kind { return v.kind }

// VocabSize returns the number of token ids, the largest id + 1 (128256 for
// Llama 3).
func (v *Vocabulary) VocabSize() int { return len(v.flags) }

// Token returns the bytes that token id stands for (for an added token,
// its content), nil if no token has that id. The caller must not modify
// them.
func (v *Vocabulary) Token(id int) []byte {
	if id < 0 || id >= len(v.tokens) {
		return nil
	}
	return v.tokens[id]
}

// Name returns the token as tokenizer.json writes it ("Ġthe" for " the"
// in a byte-level vocabulary, "▁the" in a SentencePiece one, an added
// token's content), "" if no token has that id.
func (v *Vocabulary) Name(id int) string {
	if id < 0 || id >= len(v.names) {
		return ""
	}
	return v.names[id]
}

// IsSpecial reports whether id is a special token (an added token marked
// special in tokenizer.json).
func (v *Vocabulary) IsSpecial(id int) bool {
	return id >= 0 && id < len(v.flags) && v.flags[id]&kindSpecial != 0
}

// Added reports whether id is an added token (an entry of added_tokens,
// special or not), whose Name is its content as written.
func (v *Vocabulary) Added(id int) bool {
	return id >= 0 && id < len(v.flags) && v.flags[id]&kindAdded != 0
}

// Valid reports whether some token has id.
func (v *Vocabulary) Valid(id int) bool {
	return id >= 0 && id < len(v.flags) && v.flags[id] != 0
}

// SpecialIDs returns the ids of the special tokens in increasing order.
func (v *Vocabulary) SpecialIDs() []int {
	var ids []int
	for id, k := range v.flags {
		if k&kindSpecial != 0 {
			ids = append(ids, id)
		}
	}
	return ids
}

// hasStep reports whether a pipeline step description is, or contains (as
// in a Sequence), a step of type typ.
func hasStep(raw json.RawMessage, typ string) bool {
	if isNull(raw) {
		return false
	}
	var x any
	if json.Unmarshal(raw, &x) != nil {
		return false
	}
	var walk func(x any, depth int) bool
	walk = func(x any, depth int) bool {
		if depth > 64 {
			return false
		}
		switch x := x.(type) {
		case map[string]any:
			if x["type"] == typ {
				return true
			}
			for _, y := range x {
				if walk(y, depth+1) {
					return true
				}
			}
		case []any:
			for _, y := range x {
				if walk(y, depth+1) {
					return true
				}
			}
		}
		return false
	}
	return walk(x, 0)
}
