package gcd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/gasplab/gasp/pkg/infile"
	"github.com/gasplab/gasp/pkg/tokenizer"
)

// Vocab maps token ids to the bytes they stand for.
//
// A Vocab from LoadVocab, ParseVocab or VocabFrom has one entry per id in
// [0, Size()); Special has length Size(). Every non-special token has at
// least one byte. Ids that the tokenizer leaves unused are special with no
// bytes and an empty name. A hand-built Vocab starts from the zero value
// and takes its tokens in id order with Add.
//
// The bytes and the names are held in two byte arrays with offsets, not as
// a slice and a string per token: a Vocab holds no pointer per token, so a
// garbage collection does not trace 3 × 128k of them (Llama 3) while a
// sampler waits for a mask.
type Vocab struct {
	Special []bool // by id: a special (control) token, never allowed by a grammar mask except as EOS
	EOS     []int  // end-of-sequence ids: allowed exactly when the prefix is a complete sentence

	data    []byte  // every token's bytes, in id order
	off     []int32 // token id's bytes are data[off[id]:off[id+1]]; nil or starting with 0
	names   []byte  // every token's name, in id order
	nameOff []int32 // like off, for names
	byName  []int32 // the ids sorted by name, the lowest id first among equal names; nil: unsorted (see ID)
}

// Add appends a token with the next id and returns that id: its bytes
// (for a special token, its text, which no grammar matches), whether it is
// special, and its name as written in tokenizer.json (for printing).
func (v *Vocab) Add(token []byte, special bool, name string) int {
	if v.off == nil {
		v.off, v.nameOff = []int32{0}, []int32{0}
	}
	id := len(v.Special)
	v.data = append(v.data, token...)
	v.off = append(v.off, int32(len(v.data)))
	v.names = append(v.names, name...)
	v.nameOff = append(v.nameOff, int32(len(v.names)))
	v.Special = append(v.Special, special)
	v.byName = nil
	return id
}

// Token returns the bytes of token id (nil for an id with none). The slice
// is shared: do not modify it.
func (v *Vocab) Token(id int) []byte {
	a, b := v.off[id], v.off[id+1]
	if a == b {
		return nil
	}
	return v.data[a:b:b]
}

// Name returns the name of token id: its string as written in
// tokenizer.json, such as "Ġthe" or "<|eot_id|>".
func (v *Vocab) Name(id int) string { return string(v.names[v.nameOff[id]:v.nameOff[id+1]]) }

// name is Name without the copy, to compare.
func (v *Vocab) name(id int) []byte { return v.names[v.nameOff[id]:v.nameOff[id+1]] }

// DefaultEOSNames returns the special tokens that ParseVocab takes as
// end-of-sequence tokens when a tokenizer has them: Llama 3's
// <|end_of_text|> and <|eot_id|>, GPT-2's <|endoftext|>, Llama 2's </s>,
// Gemma's <eos> and ChatML's <|im_end|>.
func DefaultEOSNames() []string { return slices.Clone(defaultEOSNames) }

var defaultEOSNames = []string{"<|end_of_text|>", "<|eot_id|>", "<|endoftext|>", "</s>", "<eos>", "<|im_end|>"}

// maxVocabID bounds the token ids ParseVocab accepts, so that a malformed
// file cannot make it allocate without limit.
const maxVocabID = 1<<22 - 1

// maxVocabFileBytes bounds a tokenizer.json (Llama 3's has 9 MB).
const maxVocabFileBytes = 256 << 20

// LoadVocab reads a Hugging Face tokenizer.json of a byte-level BPE
// tokenizer (GPT-2, Llama 3, ...). See ParseVocab; a caller that has
// loaded the tokenizer already takes VocabFrom instead.
func LoadVocab(path string) (*Vocab, error) {
	data, err := infile.Read(path, maxVocabFileBytes)
	if err != nil {
		return nil, err
	}
	v, err := ParseVocab(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// ParseVocab parses the contents of a Hugging Face tokenizer.json of a
// byte-level BPE tokenizer.
//
// The tokens of model.vocab are written in the byte-level alphabet of GPT-2
// (each byte is one character: printable Latin-1 bytes stand for
// themselves, the others for U+0100 onwards, so "Ġ" is a space and "Ċ" a
// newline); ParseVocab decodes them to bytes. Each entry of added_tokens
// overrides its id: a special one becomes a special token whose Tokens
// entry is its content, a non-special one an ordinary token whose bytes are
// its content as written (added tokens are not byte-level encoded).
//
// EOS is set to the ids of the special tokens named in DefaultEOSNames that
// the tokenizer has, in increasing order; callers may overwrite it.
//
// ParseVocab returns an error, never panics, for malformed JSON (with its
// line and column), for a model type other than "BPE", for a tokenizer
// whose pre_tokenizer and decoder have no ByteLevel step, and for a token
// with a character outside the byte-level alphabet.
func ParseVocab(data []byte) (*Vocab, error) {
	added, model, err := parseTokenizerJSON(data)
	if err != nil {
		return nil, err
	}
	size, err := vocabSize(added, model)
	if err != nil {
		return nil, err
	}
	tokens, names := make([][]byte, size), make([]string, size)
	special, seen := make([]bool, size), make([]bool, size)
	for name, id := range model {
		if seen[id] {
			return nil, fmt.Errorf("tokens %q and %q have the same id %d", names[id], name, id)
		}
		seen[id] = true
		if name == "" {
			return nil, fmt.Errorf("token id %d: empty token", id)
		}
		b, err := tokenizer.ByteLevelDecode(name)
		if err != nil {
			return nil, fmt.Errorf("token %q (id %d): %w", name, id, err)
		}
		tokens[id], names[id] = b, name
	}
	for _, t := range added {
		id := *t.ID
		if !t.Special && t.Content == "" {
			return nil, fmt.Errorf("added token %d has empty content", id)
		}
		seen[id] = true
		tokens[id], names[id], special[id] = []byte(t.Content), t.Content, t.Special
	}
	v := &Vocab{}
	for id, ok := range seen {
		// A gap (no token has this id) is special.
		v.Add(tokens[id], special[id] || !ok, names[id])
	}
	v.finish(seen)
	return v, nil
}

// finish indexes the names of the ids seen and sets EOS to the special
// tokens named in DefaultEOSNames.
func (v *Vocab) finish(seen []bool) {
	ids := make([]int32, 0, len(seen))
	for id, ok := range seen {
		if ok {
			ids = append(ids, int32(id))
		}
	}
	slices.SortStableFunc(ids, func(a, b int32) int { return bytes.Compare(v.name(int(a)), v.name(int(b))) })
	v.byName = ids
	for _, name := range defaultEOSNames {
		if id, ok := v.ID(name); ok && v.Special[id] {
			v.EOS = append(v.EOS, id)
		}
	}
	slices.Sort(v.EOS)
}

// VocabFrom returns the vocabulary of a loaded tokenizer: the Vocab that
// ParseVocab gives for its tokenizer.json, without reading it again.
func VocabFrom(t *tokenizer.Tokenizer) *Vocab {
	size := t.VocabSize()
	v := &Vocab{}
	seen := make([]bool, size)
	for id := range size {
		seen[id] = t.Valid(id)
		var b []byte
		switch {
		case t.Added(id): // its content as written, as ParseVocab takes it
			b = []byte(t.Name(id))
		case seen[id]:
			b = t.Token(id)
		}
		v.Add(b, !seen[id] || t.IsSpecial(id), t.Name(id))
	}
	v.finish(seen)
	return v
}

// addedToken is an entry of tokenizer.json's added_tokens.
type addedToken struct {
	ID      *int   `json:"id"`
	Content string `json:"content"`
	Special bool   `json:"special"`
}

// parseTokenizerJSON returns the added tokens and model.vocab of a
// byte-level BPE tokenizer.json.
func parseTokenizerJSON(data []byte) ([]addedToken, map[string]int, error) {
	var file struct {
		AddedTokens  []addedToken    `json:"added_tokens"`
		PreTokenizer json.RawMessage `json:"pre_tokenizer"`
		Decoder      json.RawMessage `json:"decoder"`
		Model        json.RawMessage `json:"model"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, nil, jsonError(data, err)
	}
	if len(file.Model) == 0 || string(file.Model) == "null" {
		return nil, nil, errors.New("tokenizer.json has no model")
	}
	var typ struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(file.Model, &typ); err != nil {
		return nil, nil, fmt.Errorf("model: %w", jsonError(file.Model, err))
	}
	if typ.Type != "BPE" {
		return nil, nil, fmt.Errorf("model.type is %q, want \"BPE\"", typ.Type)
	}
	if !hasByteLevel(file.PreTokenizer) && !hasByteLevel(file.Decoder) {
		return nil, nil, errors.New("not a byte-level BPE tokenizer: neither pre_tokenizer nor decoder has a ByteLevel step")
	}
	var model struct {
		Vocab map[string]int `json:"vocab"`
	}
	if err := json.Unmarshal(file.Model, &model); err != nil {
		return nil, nil, fmt.Errorf("model: %w", jsonError(file.Model, err))
	}
	return file.AddedTokens, model.Vocab, nil
}

// vocabSize returns max id + 1 over the model's and the added tokens.
func vocabSize(added []addedToken, model map[string]int) (int, error) {
	size := 0
	for name, id := range model {
		if id < 0 || id > maxVocabID {
			return 0, fmt.Errorf("token %q: id %d out of range [0, %d]", name, id, maxVocabID)
		}
		size = max(size, id+1)
	}
	for i, t := range added {
		if t.ID == nil {
			return 0, fmt.Errorf("added_tokens[%d] (%q): no id", i, t.Content)
		}
		if id := *t.ID; id < 0 || id > maxVocabID {
			return 0, fmt.Errorf("added token %q: id %d out of range [0, %d]", t.Content, id, maxVocabID)
		}
		size = max(size, *t.ID+1)
	}
	if size == 0 {
		return 0, errors.New("tokenizer.json has no tokens")
	}
	return size, nil
}

// Size returns the number of token ids, max id + 1.
func (v *Vocab) Size() int { return len(v.Special) }

// ID returns the id of the token whose name (its string as written in
// tokenizer.json, such as "Ġthe" or "<|eot_id|>") is name. If several
// tokens have that name, it returns the lowest id.
func (v *Vocab) ID(name string) (int, bool) {
	if v.byName == nil { // a hand-built Vocab
		for id := range v.Size() {
			if string(v.name(id)) == name {
				return id, true
			}
		}
		return 0, false
	}
	i, ok := slices.BinarySearchFunc(v.byName, name, func(id int32, name string) int {
		return bytes.Compare(v.name(int(id)), []byte(name))
	})
	if !ok {
		return 0, false
	}
	return int(v.byName[i]), true
}

// hasByteLevel reports whether a pre_tokenizer or decoder description is, or
// contains (as in a Sequence), a step of type "ByteLevel".
func hasByteLevel(raw json.RawMessage) bool {
	if len(raw) == 0 {
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
			if x["type"] == "ByteLevel" {
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
	// Offset counts the bytes read when the error was found: the error is
	// at the last of them.
	i := int(min(max(off-1, 0), int64(len(data))))
	line := 1 + bytes.Count(data[:i], []byte("\n"))
	col := i - bytes.LastIndexByte(data[:i], '\n')
	return fmt.Errorf("invalid JSON at line %d, column %d (byte offset %d): %w", line, col, off, err)
}
