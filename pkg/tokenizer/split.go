package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// QwenPattern is the pre-tokenizer regex of Qwen2, Qwen2.5 and Qwen3:
// Llama3Pattern with single digits (\p{N}) instead of runs of up to three.
const QwenPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// GPT2Pattern is the regex of the ByteLevel pre-tokenizer with use_regex
// (GPT-2, RoBERTa, and every tokenizer.json that splits with ByteLevel
// alone).
const GPT2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// A preStep is one pre-tokenizer: it splits a piece of text into pieces
// and calls yield with each, in order. first says that s starts the text
// (Metaspace's prepend_scheme "first" needs it).
type preStep interface {
	split(s string, first bool, yield func(piece string, first bool))
}

// parsePreTokenizer reads a pre_tokenizer description into its steps,
// leaving out the steps that change nothing (ByteLevel without regex or
// prefix space: the model works on bytes).
func parsePreTokenizer(data []byte, raw json.RawMessage, depth int) ([]preStep, error) {
	if isNull(raw) {
		return nil, nil
	}
	s, err := parseStep(data, "pre_tokenizer", raw)
	if err != nil {
		return nil, err
	}
	switch s.Type {
	case "Sequence":
		if depth >= maxDepth {
			return nil, fmt.Errorf("unsupported pre_tokenizer: Sequence nested deeper than %d", maxDepth)
		}
		var steps []preStep
		for _, r := range s.Pretokenizers {
			p, err := parsePreTokenizer(data, r, depth+1)
			if err != nil {
				return nil, err
			}
			steps = append(steps, p...)
		}
		return steps, nil
	case "Split":
		if s.Pattern == nil || (s.Pattern.Regex == nil) == (s.Pattern.String == nil) {
			return nil, errors.New("unsupported pre-tokenizer pattern: Split wants one Regex or String pattern")
		}
		var sp preStep
		if s.Pattern.Regex != nil {
			sp, err = newRegexSplit(*s.Pattern.Regex, s.Behavior, s.Invert)
		} else {
			sp, err = newStringSplit(*s.Pattern.String, s.Behavior, s.Invert)
		}
		if err != nil {
			return nil, err
		}
		return []preStep{sp}, nil
	case "ByteLevel":
		// Hugging Face's defaults: add_prefix_space true, use_regex true.
		bl := &byteLevelStep{prefix: s.AddPrefixSpace == nil || *s.AddPrefixSpace}
		if s.UseRegex == nil || *s.UseRegex {
			sp, err := newRegexSplit(GPT2Pattern, "Isolated", false)
			if err != nil {
				return nil, err
			}
			bl.regex = sp
		}
		if !bl.prefix && bl.regex == nil {
			return nil, nil
		}
		return []preStep{bl}, nil
	case "Metaspace":
		m, err := newMetaspace(s)
		if err != nil {
			return nil, err
		}
		return []preStep{m}, nil
	}
	return nil, fmt.Errorf("unsupported pre_tokenizer %s: want Split, ByteLevel, Metaspace or a Sequence of them", describe(raw))
}

// A span is a stretch of a piece: a match of a Split's pattern or the text
// between matches.
type span struct {
	start, end int
	match      bool
}

// splitter finds the matches of a Split's pattern and cuts as its
// behavior says.
type splitter struct {
	find     func(s string, yield func(a, b int)) // the matches, in order, none empty
	behavior string
	invert   bool
}

var behaviors = map[string]bool{"Isolated": true, "Removed": true, "MergedWithPrevious": true, "MergedWithNext": true, "Contiguous": true}

func newSplitter(find func(string, func(int, int)), behavior string, invert bool) (*splitter, error) {
	if !behaviors[behavior] {
		return nil, fmt.Errorf("unsupported pre-tokenizer Split behavior %q: want Isolated, Removed, MergedWithPrevious, MergedWithNext or Contiguous", behavior)
	}
	return &splitter{find: find, behavior: behavior, invert: invert}, nil
}

func (sp *splitter) split(s string, first bool, yield func(string, bool)) {
	var spans []span
	prev := 0
	sp.find(s, func(a, b int) {
		if prev < a {
			spans = append(spans, span{prev, a, sp.invert})
		}
		spans = append(spans, span{a, b, !sp.invert})
		prev = b
	})
	if prev < len(s) {
		spans = append(spans, span{prev, len(s), sp.invert})
	}
	for i, p := range applyBehavior(spans, sp.behavior) {
		yield(s[p.start:p.end], first && i == 0 && p.start == 0)
	}
}

// applyBehavior turns the spans that cover a piece into its pieces, as
// Hugging Face's SplitDelimiterBehavior does.
func applyBehavior(spans []span, behavior string) []span {
	var out []span
	switch behavior {
	case "Isolated":
		return spans
	case "Removed":
		for _, p := range spans {
			if !p.match {
				out = append(out, p)
			}
		}
	case "MergedWithPrevious":
		prevMatch := false
		for _, p := range spans {
			if p.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].end = p.end
			} else {
				out = append(out, p)
			}
			prevMatch = p.match
		}
	case "MergedWithNext":
		prevMatch := false
		for i := len(spans) - 1; i >= 0; i-- {
			p := spans[i]
			if p.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].start = p.start
			} else {
				out = append(out, p)
			}
			prevMatch = p.match
		}
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	case "Contiguous":
		prevMatch := false
		for i, p := range spans {
			if i > 0 && p.match == prevMatch {
				out[len(out)-1].end = p.end
			} else {
				out = append(out, p)
			}
			prevMatch = p.match
		}
	}
	return out
}

// newStringSplit splits on the occurrences of a literal string.
func newStringSplit(pat, behavior string, invert bool) (preStep, error) {
	if pat == "" {
		return nil, errors.New("unsupported pre-tokenizer Split with an empty String pattern")
	}
	return newSplitter(func(s string, yield func(a, b int)) {
		for i := 0; ; {
			j := strings.Index(s[i:], pat)
			if j < 0 {
				return
			}
			yield(i+j, i+j+len(pat))
			i += j + len(pat)
		}
	}, behavior, invert)
}

// wsTail is the lookahead that ends the patterns of GPT-2, Llama 3, Qwen
// and DeepSeek-V3: a run of white space, less its last character when a
// non-space follows, else the whole run.
const wsTail = `|\s+(?!\S)|\s+`

// newRegexSplit splits with a regex in Oniguruma's syntax. The Llama-3 and
// Qwen patterns have hand-written scanners; another pattern is translated
// to Go's regexp, which finds the same matches as a backtracking engine
// (leftmost-first) for patterns without lookaround; a pattern that ends in
// wsTail has the rest translated and the tail scanned.
func newRegexSplit(pat, behavior string, invert bool) (preStep, error) {
	if behavior == "Isolated" && !invert {
		switch pat {
		case Llama3Pattern:
			return scanner{digits: 3}, nil
		case QwenPattern:
			return scanner{digits: 1}, nil
		}
	}
	find, err := regexFinder(pat)
	if err != nil {
		return nil, err
	}
	return newSplitter(find, behavior, invert)
}

// regexFinder returns the function that finds the matches of pat, in
// Oniguruma's syntax, with Go's regexp and, for a final wsTail, a scanner.
func regexFinder(pat string) (func(string, func(int, int)), error) {
	prefix, tail := pat, strings.HasSuffix(pat, wsTail)
	if tail {
		prefix = pat[:len(pat)-len(wsTail)]
	}
	goPat, err := translateRegex(prefix, tail)
	if err != nil {
		return nil, fmt.Errorf("unsupported pre-tokenizer pattern %q: %w", pat, err)
	}
	if tail {
		goPat = `^(?:` + goPat + `)`
	}
	re, err := regexp.Compile(goPat)
	if err != nil {
		return nil, fmt.Errorf("unsupported pre-tokenizer pattern %q: %w", pat, err)
	}
	if re.MatchString("") {
		return nil, fmt.Errorf("unsupported pre-tokenizer pattern %q: it matches the empty string", pat)
	}
	if tail {
		return func(s string, yield func(a, b int)) { findWithWSTail(re, s, yield) }, nil
	}
	return func(s string, yield func(a, b int)) {
		for _, m := range re.FindAllStringIndex(s, -1) {
			yield(m[0], m[1])
		}
	}, nil
}

// findWithWSTail finds the matches of "prefix|\s+(?!\S)|\s+", where re is
// the prefix anchored at the start: at each position the prefix is tried
// first, then the white-space alternatives.
func findWithWSTail(re *regexp.Regexp, s string, yield func(a, b int)) {
	for i := 0; i < len(s); {
		if m := re.FindStringIndex(s[i:]); m != nil {
			yield(i, i+m[1])
			i += m[1]
			continue
		}
		c, n := charAt(s, i)
		if c&clSpace == 0 {
			i += n
			continue
		}
		j, last := i, i
		for j < len(s) {
			c, n := charAt(s, j)
			if c&clSpace == 0 {
				break
			}
			last = j
			j += n
		}
		if j < len(s) && last > i {
			j = last // \s+(?!\S): the run less its last space
		}
		yield(i, j)
		i = j
	}
}

// whiteSpace is the Unicode White_Space property, Oniguruma's \s, as the
// contents of a character class of Go's regexp.
const whiteSpace = `\t-\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}`

// translateRegex rewrites a regex of Oniguruma's Ruby syntax, as
// tokenizer.json writes it, in Go's syntax: \s and \S as White_Space, \d as
// \p{Nd}, $ and ^ at line ends (Ruby's meaning). It rejects lookaround,
// backreferences, nested classes and the escapes whose meaning differs;
// open says that alternatives will be appended (the parentheses must
// balance).
func translateRegex(p string, open bool) (string, error) {
	var b strings.Builder
	inClass, depth := false, 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\':
			if i+1 >= len(p) {
				return "", errors.New("trailing backslash")
			}
			i++
			e := p[i]
			switch e {
			case 's':
				if inClass {
					b.WriteString(whiteSpace)
				} else {
					b.WriteString("[" + whiteSpace + "]")
				}
			case 'S':
				if inClass {
					return "", errors.New(`\S inside a character class`)
				}
				b.WriteString("[^" + whiteSpace + "]")
			case 'd':
				b.WriteString(`\p{Nd}`)
			case 'D':
				if inClass {
					return "", errors.New(`\D inside a character class`)
				}
				b.WriteString(`\P{Nd}`)
			case 'p', 'P', 'r', 'n', 't', 'f', 'v', 'x', 'u':
				if e == 'u' {
					return "", errors.New(`\u escape`)
				}
				b.WriteByte('\\')
				b.WriteByte(e)
			default:
				if e < utf8.RuneSelf && (e >= 'a' && e <= 'z' || e >= 'A' && e <= 'Z' || e >= '0' && e <= '9') {
					return "", fmt.Errorf("escape \\%c", e)
				}
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		case inClass:
			if c == '[' {
				return "", errors.New("nested character class")
			}
			if c == ']' {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' { // a leading ']' is literal
				b.WriteString(`\]`)
				i++
			}
		case c == '(':
			if strings.HasPrefix(p[i:], "(?=") || strings.HasPrefix(p[i:], "(?!") || strings.HasPrefix(p[i:], "(?<") {
				return "", errors.New("lookaround other than a final |\\s+(?!\\S)|\\s+")
			}
			depth++
			b.WriteByte(c)
		case c == ')':
			depth--
			b.WriteByte(c)
		case c == '$':
			b.WriteString(`(?m:$)`)
		case c == '^':
			b.WriteString(`(?m:^)`)
		default:
			b.WriteByte(c)
		}
	}
	if inClass {
		return "", errors.New("unterminated character class")
	}
	if open && depth != 0 {
		return "", errors.New("unbalanced parentheses")
	}
	return b.String(), nil
}

// scanner is a Split with Llama3Pattern (digits 3) or QwenPattern
// (digits 1), behavior Isolated, by the hand-written scanner.
type scanner struct{ digits int }

func (sc scanner) split(s string, first bool, yield func(string, bool)) {
	for i := 0; i < len(s); {
		j := scanMatch(s, i, sc.digits)
		yield(s[i:j], first && i == 0)
		i = j
	}
}

// byteLevelStep is the ByteLevel pre-tokenizer: a space in front of a
// piece that has none (add_prefix_space), then GPT-2's split (use_regex).
// Its mapping of bytes to characters is left out: the model works on bytes.
type byteLevelStep struct {
	prefix bool
	regex  preStep
}

func (bl *byteLevelStep) split(s string, first bool, yield func(string, bool)) {
	if bl.prefix && !strings.HasPrefix(s, " ") {
		s = " " + s
	}
	if bl.regex == nil {
		yield(s, first)
		return
	}
	bl.regex.split(s, first, yield)
}

// metaspaceStep is the Metaspace pre-tokenizer of SentencePiece models:
// spaces become the replacement character ("▁"), which is put in front of
// a piece (always, never, or only in front of the text's first piece), and
// with split the piece is cut in front of each replacement character.
type metaspaceStep struct {
	repl   string
	scheme string // "always", "never" or "first"
	cut    bool
}

func newMetaspace(s *step) (*metaspaceStep, error) {
	m := &metaspaceStep{repl: s.metaspaceReplacement(), scheme: "always", cut: s.SplitPieces == nil || *s.SplitPieces}
	switch {
	case s.PrependScheme != nil:
		m.scheme = *s.PrependScheme
	case s.AddPrefixSpace != nil && !*s.AddPrefixSpace:
		m.scheme = "never"
	}
	if m.scheme != "always" && m.scheme != "never" && m.scheme != "first" {
		return nil, fmt.Errorf("unsupported Metaspace prepend_scheme %q: want always, never or first", m.scheme)
	}
	return m, nil
}

// metaspaceReplacement returns a Metaspace step's replacement, "▁" by
// default.
func (s *step) metaspaceReplacement() string {
	if s.Replacement != nil && *s.Replacement != "" {
		return *s.Replacement
	}
	return "\u2581"
}

// metaspacePrepends reports whether a Metaspace step puts the replacement
// in front of a text (which its decoder then removes).
func (s *step) metaspacePrepends() bool {
	if s.PrependScheme != nil {
		return *s.PrependScheme != "never"
	}
	return s.AddPrefixSpace == nil || *s.AddPrefixSpace
}

func (m *metaspaceStep) split(s string, first bool, yield func(string, bool)) {
	s = strings.ReplaceAll(s, " ", m.repl)
	if !strings.HasPrefix(s, m.repl) && (m.scheme == "always" || m.scheme == "first" && first) {
		s = m.repl + s
	}
	if !m.cut {
		yield(s, first)
		return
	}
	// MergedWithNext on the replacement: each piece but the first starts
	// with one.
	start := 0
	for i := 0; ; {
		j := strings.Index(s[i:], m.repl)
		if j < 0 {
			break
		}
		if at := i + j; at > start {
			yield(s[start:at], first && start == 0)
			start = at
		}
		i += j + len(m.repl)
	}
	if start < len(s) {
		yield(s[start:], first && start == 0)
	}
}
