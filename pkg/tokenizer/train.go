package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Llama3SpecialTokens returns the special tokens that Train adds by
// default: those the Llama 3.1 Instruct chat template writes, and the end of
// text.
func Llama3SpecialTokens() []string {
	return []string{
		"<|begin_of_text|>",
		"<|end_of_text|>",
		"<|start_header_id|>",
		"<|end_header_id|>",
		"<|eot_id|>",
	}
}

// TrainOptions are options of Train.
type TrainOptions struct {
	// VocabSize is the size of the vocabulary, special tokens included: 256
	// byte tokens, VocabSize-256-len(SpecialTokens) merges (fewer when the
	// texts run out of pairs), then the special tokens.
	VocabSize int
	// SpecialTokens are added after the model's tokens, in order; nil means
	// Llama3SpecialTokens(). Their text is split off the training texts and
	// never takes part in merges.
	SpecialTokens []string
	// BOS is the special token that the post-processor puts in front of a
	// sequence encoded with AddSpecial; "" means the first special token.
	BOS string
	// MinFrequency is the least number of occurrences of a pair to merge it;
	// 0 means 2.
	MinFrequency int
}

// Train learns a byte-level BPE tokenizer from texts, as Hugging Face's
// BpeTrainer does for Llama 3: the texts are split by the Llama 3
// pre-tokenizer (Llama3Pattern), and starting from the 256 byte tokens, the
// most frequent pair of adjacent tokens within a piece is merged into a new
// token, until the vocabulary is full. Ties go to the pair whose merged
// bytes come first, then to the pair of smaller ids, so the result depends
// only on the texts and options. It returns the tokenizer.json (the
// pre-tokenizer, post-processor and decoder of Llama 3), which Parse loads.
func Train(texts []string, opts TrainOptions) ([]byte, error) {
	specials := opts.SpecialTokens
	if specials == nil {
		specials = Llama3SpecialTokens()
	}
	nMerges := opts.VocabSize - 256 - len(specials)
	if nMerges < 0 {
		return nil, fmt.Errorf("tokenizer: Train: vocabulary size %d is smaller than 256 bytes + %d special tokens", opts.VocabSize, len(specials))
	}
	seen := map[string]bool{}
	for _, s := range specials {
		if s == "" || seen[s] {
			return nil, fmt.Errorf("tokenizer: Train: empty or repeated special token %q", s)
		}
		seen[s] = true
	}
	bos := opts.BOS
	if bos == "" && len(specials) > 0 {
		bos = specials[0]
	}
	if bos != "" && !seen[bos] {
		return nil, fmt.Errorf("tokenizer: Train: BOS %q is not a special token", bos)
	}
	minFreq := opts.MinFrequency
	if minFreq <= 0 {
		minFreq = 2
	}

	// Count the pieces.
	counts := map[string]int{}
	for _, text := range texts {
		for _, part := range splitSpecials(text, specials) {
			splitLlama3(part, func(p string) bool {
				counts[p]++
				return true
			})
		}
	}
	words := make([]string, 0, len(counts))
	for w := range counts {
		words = append(words, w)
	}
	slices.Sort(words)
	tr := &bpeTrainer{pairs: map[uint64]int{}}
	for _, w := range words {
		syms := make([]int32, len(w))
		for i := range len(w) {
			syms[i] = int32(w[i])
		}
		tr.words = append(tr.words, syms)
		tr.freq = append(tr.freq, counts[w])
	}
	for i := range 256 {
		tr.tokens = append(tr.tokens, []byte{byte(i)})
	}
	for wi := range tr.words {
		tr.count(wi, 1)
	}
	for range nMerges {
		a, b, ok := tr.best(minFreq)
		if !ok {
			break
		}
		tr.merge(a, b)
	}
	return tr.json(specials, bos)
}

// splitSpecials cuts the special tokens' text out of s.
func splitSpecials(s string, specials []string) []string {
	parts := []string{s}
	for _, sp := range specials {
		var next []string
		for _, p := range parts {
			for _, q := range strings.Split(p, sp) {
				if q != "" {
					next = append(next, q)
				}
			}
		}
		parts = next
	}
	return parts
}

// bpeTrainer holds the distinct pieces of the texts as token sequences, with
// their frequencies, and the weighted counts of adjacent token pairs.
type bpeTrainer struct {
	words  [][]int32
	freq   []int
	pairs  map[uint64]int
	tokens [][]byte // by id
	merges [][2]int32
}

// count adds sign·freq of word wi to the counts of its pairs.
func (tr *bpeTrainer) count(wi, sign int) {
	w := tr.words[wi]
	for i := 0; i+1 < len(w); i++ {
		k := pairKey(w[i], w[i+1])
		tr.pairs[k] += sign * tr.freq[wi]
		if tr.pairs[k] == 0 {
			delete(tr.pairs, k)
		}
	}
}

// best returns the pair to merge next.
func (tr *bpeTrainer) best(minFreq int) (a, b int32, ok bool) {
	bestN := 0
	for k, n := range tr.pairs {
		x, y := int32(k>>32), int32(uint32(k))
		if n < minFreq || n < bestN {
			continue
		}
		if n == bestN && !tr.before(x, y, a, b) {
			continue
		}
		a, b, bestN, ok = x, y, n, true
	}
	return a, b, ok
}

// before orders pairs of equal count: by the merged bytes, then by ids.
func (tr *bpeTrainer) before(x, y, a, b int32) bool {
	c := bytes.Compare(append(slices.Clip(tr.tokens[x]), tr.tokens[y]...), append(slices.Clip(tr.tokens[a]), tr.tokens[b]...))
	if c != 0 {
		return c < 0
	}
	return x < a || x == a && y < b
}

// merge adds the token a+b and rewrites every piece with it.
func (tr *bpeTrainer) merge(a, b int32) {
	id := int32(len(tr.tokens))
	tr.tokens = append(tr.tokens, append(slices.Clip(tr.tokens[a]), tr.tokens[b]...))
	tr.merges = append(tr.merges, [2]int32{a, b})
	for wi, w := range tr.words {
		has := false
		for i := 0; i+1 < len(w); i++ {
			if w[i] == a && w[i+1] == b {
				has = true
				break
			}
		}
		if !has {
			continue
		}
		tr.count(wi, -1)
		out := w[:0]
		for i := 0; i < len(w); i++ {
			if i+1 < len(w) && w[i] == a && w[i+1] == b {
				out = append(out, id)
				i++
			} else {
				out = append(out, w[i])
			}
		}
		tr.words[wi] = out
		tr.count(wi, 1)
	}
}

// json writes the tokenizer.json.
func (tr *bpeTrainer) json(specials []string, bos string) ([]byte, error) {
	str := func(s string) string {
		b, err := json.Marshal(s)
		if err != nil {
			panic(err) // strings always marshal
		}
		return string(b)
	}
	name := func(id int32) string { return ByteLevelEncode(tr.tokens[id]) }
	names := map[string]bool{}
	for id := range tr.tokens {
		n := name(int32(id))
		if names[n] {
			return nil, errors.New("tokenizer: Train: duplicate token " + n)
		}
		names[n] = true
	}
	var b bytes.Buffer
	b.WriteString("{\n  \"version\": \"1.0\",\n  \"truncation\": null,\n  \"padding\": null,\n  \"added_tokens\": [")
	bosID := -1
	for i, s := range specials {
		id := len(tr.tokens) + i
		if s == bos {
			bosID = id
		}
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\n    {\"id\": %d, \"content\": %s, \"single_word\": false, \"lstrip\": false, \"rstrip\": false, \"normalized\": false, \"special\": true}", id, str(s))
	}
	b.WriteString("\n  ],\n  \"normalizer\": null,\n")
	fmt.Fprintf(&b, "  \"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Split\", \"pattern\": {\"Regex\": %s}, \"behavior\": \"Isolated\", \"invert\": false}, {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets\": true, \"use_regex\": false}]},\n", str(Llama3Pattern))
	b.WriteString("  \"post_processor\": {\"type\": \"Sequence\", \"processors\": [{\"type\": \"ByteLevel\", \"add_prefix_space\": true, \"trim_offsets\": false, \"use_regex\": true}")
	if bosID >= 0 {
		fmt.Fprintf(&b, ", {\"type\": \"TemplateProcessing\", \"single\": [{\"SpecialToken\": {\"id\": %[1]s, \"type_id\": 0}}, {\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}], \"pair\": [{\"SpecialToken\": {\"id\": %[1]s, \"type_id\": 0}}, {\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}, {\"SpecialToken\": {\"id\": %[1]s, \"type_id\": 1}}, {\"Sequence\": {\"id\": \"B\", \"type_id\": 1}}], \"special_tokens\": {%[1]s: {\"id\": %[1]s, \"ids\": [%[2]d], \"tokens\": [%[1]s]}}}", str(bos), bosID)
	}
	b.WriteString("]},\n  \"decoder\": {\"type\": \"ByteLevel\", \"add_prefix_space\": true, \"trim_offsets\": true, \"use_regex\": true},\n")
	b.WriteString("  \"model\": {\n    \"type\": \"BPE\",\n    \"dropout\": null,\n    \"unk_token\": null,\n    \"continuing_subword_prefix\": null,\n    \"end_of_word_suffix\": null,\n    \"fuse_unk\": false,\n    \"byte_fallback\": false,\n    \"ignore_merges\": false,\n    \"vocab\": {")
	for id := range tr.tokens {
		if id > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\n      %s: %d", str(name(int32(id))), id)
	}
	b.WriteString("\n    },\n    \"merges\": [")
	for i, m := range tr.merges {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\n      [%s, %s]", str(name(m[0])), str(name(m[1])))
	}
	b.WriteString("\n    ]\n  }\n}\n")
	return b.Bytes(), nil
}
