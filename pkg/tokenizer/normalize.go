package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// A normalizer rewrites the text between added tokens before it is split
// into pieces, as a Hugging Face normalizer does (offsets are not kept: the
// tokenizer gives ids, not alignments).
type normalizer func(s string) string

// parseNormalizer reads a normalizer description: nil for none.
func parseNormalizer(data []byte, raw json.RawMessage, depth int) (normalizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	s, err := parseStep(data, "normalizer", raw)
	if err != nil {
		return nil, err
	}
	switch s.Type {
	case "Sequence":
		if depth >= maxDepth {
			return nil, fmt.Errorf("unsupported normalizer: Sequence nested deeper than %d", maxDepth)
		}
		var steps []normalizer
		for _, r := range s.Normalizers {
			n, err := parseNormalizer(data, r, depth+1)
			if err != nil {
				return nil, err
			}
			if n != nil {
				steps = append(steps, n)
			}
		}
		if len(steps) == 0 {
			return nil, nil
		}
		return func(s string) string {
			for _, n := range steps {
				s = n(s)
			}
			return s
		}, nil
	case "NFC":
		return norm.NFC.String, nil
	case "NFD":
		return norm.NFD.String, nil
	case "NFKC":
		return norm.NFKC.String, nil
	case "NFKD":
		return norm.NFKD.String, nil
	case "Lowercase":
		return strings.ToLower, nil
	case "Prepend":
		if s.Prepend == nil {
			return nil, fmt.Errorf("normalizer Prepend without prepend")
		}
		p := *s.Prepend
		// As Hugging Face: an empty text stays empty.
		return func(s string) string {
			if s == "" {
				return s
			}
			return p + s
		}, nil
	case "Replace":
		if s.Pattern == nil || s.Pattern.String == nil || *s.Pattern.String == "" || s.Content == nil {
			return nil, fmt.Errorf("unsupported normalizer Replace %s: only a non-empty string pattern is supported", describe(raw))
		}
		from, to := *s.Pattern.String, *s.Content
		return func(s string) string { return strings.ReplaceAll(s, from, to) }, nil
	}
	return nil, fmt.Errorf("unsupported normalizer %s: want NFC, NFD, NFKC, NFKD, Lowercase, Prepend, Replace or a Sequence of them", describe(raw))
}
