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
	Vocab                   rawJSON  `json:"vocab"`
	Merges                  rawJSON  `json:"merges"`
}

// step is one pre-tokenizer, post-processor or decoder description: a type
// and its fields (of the types that Parse supports).
type step struct {
	Type          string            `json:"type"`
	Pretokenizers []json.RawMessage `json:"pretokenizers"`
	Processors    []json.RawMessage `json:"processors"`
	// Split.
	Pattern  *struct{ Regex, String *string } `json:"pattern"`
	Behavior string                           `json:"behavior"`
	Invert   bool                             `json:"invert"`
	// ByteLevel.
	AddPrefixSpace bool  `json:"add_prefix_space"`
	UseRegex       *bool `json:"use_regex"`
	// TemplateProcessing.
	Single        []templatePiece                `json:"single"`
	SpecialTokens map[string]struct{ IDs []int } `json:"special_tokens"`
}

type templatePiece struct {
	SpecialToken *struct{ ID string } `json:"SpecialToken"`
	Sequence     *struct{ ID string } `json:"Sequence"`
}

// Parse parses the contents of a Hugging Face tokenizer.json of a byte-level
// BPE tokenizer with the Llama-3 pre-tokenizer. It supports:
//
//   - model: type BPE with vocab, merges (as "a b" strings or ["a", "b"]
//     pairs) and ignore_merges; the vocab must have a token for each of the
//     256 bytes (so unk_token and byte_fallback never apply); no dropout,
//     continuing_subword_prefix or end_of_word_suffix;
//   - normalizer: null;
//   - pre_tokenizer: Sequence of Split (Regex Llama3Pattern, behavior
//     Isolated, not inverted) and ByteLevel (use_regex false, no
//     add_prefix_space);
//   - post_processor: null, ByteLevel, TemplateProcessing (its single
//     template) or a Sequence of these;
//   - decoder: ByteLevel;
//   - added_tokens without lstrip, rstrip or single_word.
//
// For anything else it returns an error that names what is unsupported; for
// malformed JSON, an error with its line and column. It never panics.
func Parse(data []byte) (*Tokenizer, error) {
	var file tokenizerJSON
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, jsonError(data, err)
	}
	if isNull(json.RawMessage(file.Model)) {
		return nil, errors.New("tokenizer.json has no model")
	}
	if !isNull(file.Normalizer) {
		return nil, fmt.Errorf("unsupported normalizer %s: only null is supported", describe(file.Normalizer))
	}
	if err := checkPreTokenizer(data, file.PreTokenizer); err != nil {
		return nil, err
	}
	if err := checkDecoder(data, file.Decoder); err != nil {
		return nil, err
	}
	var model modelJSON
	if err := json.Unmarshal(file.Model, &model); err != nil {
		return nil, fmt.Errorf("model: %w", jsonErrorIn(data, json.RawMessage(file.Model), err))
	}
	if err := checkModel(&model); err != nil {
		return nil, err
	}

	t := &Tokenizer{ignoreMerges: model.IgnoreMerges, bos: -1, eos: -1, cache: newCache()}
	if err := t.buildVocab(data, &model, file.AddedTokens); err != nil {
		return nil, err
	}
	if err := t.buildMerges(data, &model); err != nil {
		return nil, err
	}
	if err := t.buildPostProcessor(data, file.PostProcessor); err != nil {
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

// requiredStep decodes raw, a part of data, as the step what, which must
// not be null; want says what is supported.
func requiredStep(data []byte, what string, raw json.RawMessage, want string) (*step, error) {
	if isNull(raw) {
		return nil, fmt.Errorf("unsupported %s null: want %s", what, want)
	}
	return parseStep(data, what, raw)
}

// checkPreTokenizer accepts exactly the Llama-3 pre-tokenizer:
// Sequence[Split(Llama3Pattern, Isolated), ByteLevel(use_regex false)].
func checkPreTokenizer(data []byte, raw json.RawMessage) error {
	s, err := requiredStep(data, "pre_tokenizer", raw, "Sequence[Split, ByteLevel] (Llama 3)")
	if err != nil {
		return err
	}
	if s.Type != "Sequence" || len(s.Pretokenizers) != 2 {
		return fmt.Errorf("unsupported pre_tokenizer %s: want Sequence[Split, ByteLevel] (Llama 3)", describe(raw))
	}
	split, err := parseStep(data, "pre_tokenizer.pretokenizers[0]", s.Pretokenizers[0])
	if err != nil {
		return err
	}
	bl, err := parseStep(data, "pre_tokenizer.pretokenizers[1]", s.Pretokenizers[1])
	if err != nil {
		return err
	}
	if split.Type != "Split" || bl.Type != "ByteLevel" {
		return fmt.Errorf("unsupported pre_tokenizer Sequence[%q, %q]: want Sequence[Split, ByteLevel] (Llama 3)", split.Type, bl.Type)
	}
	switch {
	case split.Pattern == nil || split.Pattern.Regex == nil:
		return errors.New("unsupported pre-tokenizer pattern: Split without a Regex pattern")
	case *split.Pattern.Regex != Llama3Pattern:
		return fmt.Errorf("unsupported pre-tokenizer pattern %q: only the Llama-3 pattern is implemented", *split.Pattern.Regex)
	case split.Behavior != "Isolated":
		return fmt.Errorf("unsupported pre-tokenizer Split behavior %q: want \"Isolated\"", split.Behavior)
	case split.Invert:
		return errors.New("unsupported pre-tokenizer Split with invert true")
	case bl.UseRegex == nil || *bl.UseRegex:
		return errors.New("unsupported pre-tokenizer ByteLevel with use_regex true (GPT-2 pattern): want false")
	case bl.AddPrefixSpace:
		return errors.New("unsupported pre-tokenizer ByteLevel with add_prefix_space true")
	}
	return nil
}

func checkDecoder(data []byte, raw json.RawMessage) error {
	s, err := requiredStep(data, "decoder", raw, "ByteLevel")
	if err != nil {
		return err
	}
	if s.Type != "ByteLevel" {
		return fmt.Errorf("unsupported decoder %s: want ByteLevel", describe(raw))
	}
	return nil
}

func checkModel(m *modelJSON) error {
	switch {
	case m.Type != "BPE" && m.Type != "":
		return fmt.Errorf("unsupported model.type %q: want \"BPE\"", m.Type)
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

// buildVocab fills the token tables from the model's vocab and the added
// tokens.
func (t *Tokenizer) buildVocab(data []byte, m *modelJSON, added []addedTokenJSON) error {
	entries, size, err := readVocab(data, m)
	if err != nil {
		return err
	}
	if size, err = checkAdded(added, size); err != nil {
		return err
	}
	t.tokens = make([][]byte, size)
	t.names = make([]string, size)
	t.kind = make([]uint8, size)
	t.vocab = make(map[string]int32, len(entries))
	for _, e := range entries {
		if err := t.addModelToken(e.name, e.id); err != nil {
			return fmt.Errorf("model.vocab: %w", err)
		}
	}
	for b := range 256 {
		id, ok := t.vocab[string([]byte{byte(b)})]
		if !ok {
			return fmt.Errorf("model.vocab has no token %q for byte 0x%02x: not a byte-level vocabulary", string(byteToRune[b]), b)
		}
		t.byteIDs[b] = id
	}
	t.addedIDs = make(map[string]int, len(added))
	for _, a := range added {
		t.addAddedToken(a)
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
	if len(entries) == 0 {
		return nil, 0, errors.New("model.vocab is empty")
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

// addModelToken records the model token name (as tokenizer.json writes it)
// with the given id.
func (t *Tokenizer) addModelToken(name string, id int) error {
	if t.kind[id] != 0 {
		return fmt.Errorf("tokens %q and %q have the same id %d", t.names[id], name, id)
	}
	t.kind[id] = kindModel
	t.names[id] = name
	b, err := ByteLevelDecode(name)
	if err != nil {
		// HF's ByteLevel decoder gives such a token's text as it is;
		// encoding never produces it, merges may name it.
		t.tokens[id] = []byte(name)
		if t.oddNames == nil {
			t.oddNames = make(map[string]int32)
		}
		if _, dup := t.oddNames[name]; dup {
			return fmt.Errorf("token %q appears twice", name)
		}
		t.oddNames[name] = int32(id)
		return nil
	}
	if _, dup := t.vocab[string(b)]; dup {
		return fmt.Errorf("token %q appears twice", name)
	}
	t.tokens[id] = b
	t.vocab[string(b)] = int32(id)
	return nil
}

// addAddedToken records an added token, checked by checkAdded.
func (t *Tokenizer) addAddedToken(a addedTokenJSON) {
	id := *a.ID
	k := uint8(kindAdded)
	if a.Special {
		k |= kindSpecial
	}
	t.kind[id] = t.kind[id]&kindModel | k
	t.names[id] = a.Content
	// As HF's ByteLevel decoder: the bytes the content stands for in the
	// byte-level alphabet if it is written in it, else the content.
	if b, err := ByteLevelDecode(a.Content); err == nil {
		t.tokens[id] = b
	} else {
		t.tokens[id] = []byte(a.Content)
	}
	t.addedIDs[a.Content] = id
	if a.Normalized && !a.Special {
		t.addedNorm.add(a.Content, id, a.Special)
	} else {
		t.addedRaw.add(a.Content, id, a.Special)
	}
}

// modelID returns the id of the model token that tokenizer.json writes as
// name, using buf as scratch.
func (t *Tokenizer) modelID(name string, buf []byte) (int32, []byte, bool) {
	buf, ok := appendByteLevelDecode(buf[:0], name)
	if !ok {
		id, ok := t.oddNames[name]
		return id, buf, ok
	}
	id, ok := t.vocab[string(buf)]
	return id, buf, ok
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
		var idA, idB, idAB int32
		var ok bool
		if idA, buf, ok = t.modelID(a, buf); !ok {
			return fmt.Errorf("merge %d: token %q is not in the vocab", rank, a)
		}
		if idB, buf, ok = t.modelID(b, buf); !ok {
			return fmt.Errorf("merge %d: token %q is not in the vocab", rank, b)
		}
		if idAB, buf, ok = t.modelID(a+b, buf); !ok {
			return fmt.Errorf("merge %d: merged token %q is not in the vocab", rank, a+b)
		}
		// A later duplicate overrides an earlier one, as in HF.
		v := uint64(rank)<<32 | uint64(idAB)
		t.merges[pairKey(idA, idB)] = v
		if len(t.tokens[idA]) == 1 && len(t.tokens[idB]) == 1 && t.byteIDs[t.tokens[idA][0]] == idA && t.byteIDs[t.tokens[idB][0]] == idB {
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
