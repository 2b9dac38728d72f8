package gcd

import (
	"bytes"
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
// Gemma's <eos>, ChatML's <|im_end|> (Qwen) and DeepSeek's
// <｜end▁of▁sentence｜>.
func DefaultEOSNames() []string { return slices.Clone(defaultEOSNames) }

var defaultEOSNames = []string{"<|end_of_text|>", "<|eot_id|>", "<|endoftext|>", "</s>", "<eos>", "<|im_end|>", "<｜end▁of▁sentence｜>"}

// maxVocabFileBytes bounds a tokenizer.json (Llama 3's has 9 MB).
const maxVocabFileBytes = tokenizer.MaxFileBytes

// LoadVocab reads a Hugging Face tokenizer.json of a BPE tokenizer, of the
// byte-level kind (GPT-2, Llama 3, Qwen, DeepSeek-V3) or the SentencePiece
// kind (Llama 2, Mistral, Gemma). See ParseVocab; a caller that has loaded
// the tokenizer already takes VocabFrom instead.
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

// ParseVocab parses the contents of a Hugging Face tokenizer.json of a BPE
// tokenizer with tokenizer.ParseVocabulary, the reader that
// tokenizer.Parse uses too, and returns its Vocab (see VocabFrom).
//
// Each token stands for its exact bytes: a byte-level token's name is
// decoded from GPT-2's byte-level alphabet ("Ġ" is a space, "Ċ" a
// newline); a SentencePiece token's "▁" is a space and its byte-fallback
// tokens "<0xNN>" are single bytes. An added token, special or not, stands
// for its content, decoded as the model's tokens are (as Hugging Face's
// decoder does); a special one is a special token.
//
// EOS is set to the ids of the special tokens named in DefaultEOSNames that
// the tokenizer has, in increasing order; callers may overwrite it (with
// the model's own list: see ModelEOS).
//
// ParseVocab returns an error, never panics, for malformed JSON (with its
// line and column), for a model type other than "BPE", for a tokenizer of
// neither kind, for an empty token and for ids that clash or are out of
// range.
func ParseVocab(data []byte) (*Vocab, error) {
	tv, err := tokenizer.ParseVocabulary(data)
	if err != nil {
		return nil, err
	}
	return vocabOf(tv), nil
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
func VocabFrom(t *tokenizer.Tokenizer) *Vocab { return vocabOf(t.Vocabulary) }

// vocabOf builds the Vocab of a token table. Ids that no token has are
// special with no bytes.
func vocabOf(t *tokenizer.Vocabulary) *Vocab {
	size := t.VocabSize()
	v := &Vocab{}
	seen := make([]bool, size)
	for id := range size {
		seen[id] = t.Valid(id)
		v.Add(t.Token(id), !seen[id] || t.IsSpecial(id), t.Name(id))
	}
	v.finish(seen)
	return v
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
