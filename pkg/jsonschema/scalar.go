package jsonschema

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/regex"
)

// bounds reads a pair of non-negative integer keywords (minLength and
// maxLength, minItems and maxItems); hi < 0 means unbounded. Not ok if one
// is malformed (reported) or no count is in range (lo > hi: the empty
// language).
func (c *compiler) bounds(s *Value, ptr, minKey, maxKey string) (lo, hi int, ok bool) {
	get := func(k string, def int) (int, bool) {
		v := s.Get(k)
		if v == nil {
			return def, true
		}
		n, err := parseCount(v)
		if err != nil {
			c.errorf(ptr+"/"+k, "%s: %v", k, err)
			return 0, false
		}
		return n, true
	}
	lo, ok1 := get(minKey, 0)
	hi, ok2 := get(maxKey, -1)
	return lo, hi, ok1 && ok2 && (hi < 0 || lo <= hi)
}

// maxCount bounds lengths: a bounded repetition of n becomes n rules.
const maxCount = 10000

func parseCount(v *Value) (int, error) {
	if v.Kind != Number {
		return 0, fmt.Errorf("not a number")
	}
	r, ok := new(big.Rat).SetString(v.Num)
	if !ok || !r.IsInt() || r.Sign() < 0 {
		return 0, fmt.Errorf("%s is not a non-negative integer", v.Num)
	}
	if r.Num().Cmp(big.NewInt(maxCount)) > 0 {
		return 0, fmt.Errorf("%s is over the supported %d", v.Num, maxCount)
	}
	return int(r.Num().Int64()), nil
}

// number returns the numbers (integer: the integers) schema s allows.
// Integers are written "0" or -?[1-9][0-9]*, and their bounds are exact.
// Other numbers are any JSON number when unbounded; with a bound they are
// plain decimals (canonicalNumber's form), and the bounds are exact.
func (c *compiler) number(s *Value, ptr string, integer bool) grammar.Expr {
	var lo, hi *bound
	for _, k := range []string{"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"} {
		v := s.Get(k)
		if v == nil {
			continue
		}
		if v.Kind != Number {
			c.errorf(ptr+"/"+k, "%s must be a number", k)
			return nil
		}
		lit := canonicalNumber(v.Num)
		r, ok := new(big.Rat).SetString(lit)
		if !ok || strings.ContainsAny(lit, "eE") || len(lit) > 1000 {
			c.errorf(ptr+"/"+k, "%s %s is out of the supported range", k, v.Num)
			return nil
		}
		b := &bound{r, !strings.HasPrefix(k, "exclusive")}
		if strings.HasSuffix(k, "inimum") {
			if lo == nil || tighter(b, lo, 1) {
				lo = b
			}
		} else if hi == nil || tighter(b, hi, -1) {
			hi = b
		}
	}
	var re string
	switch {
	case integer:
		re = intRange(intBound(lo, true), intBound(hi, false))
	case lo == nil && hi == nil:
		re = `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
	default:
		re = decimalRange(lo, hi)
	}
	if re == "" {
		return nil
	}
	return c.regex(re, ptr)
}

// tighter reports whether lower (sign 1) or upper (sign -1) bound b
// excludes more than a.
func tighter(b, a *bound, sign int) bool {
	c := b.val.Cmp(a.val) * sign
	return c > 0 || c == 0 && !b.incl
}

// intBound is the least (lower) or greatest (upper) integer a bound admits.
func intBound(b *bound, lower bool) *big.Int {
	if b == nil {
		return nil
	}
	if lower {
		n := ceil(b.val)
		if !b.incl && b.val.IsInt() {
			n.Add(n, big.NewInt(1))
		}
		return n
	}
	n := floor(b.val)
	if !b.incl && b.val.IsInt() {
		n.Sub(n, big.NewInt(1))
	}
	return n
}

func floor(r *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	_ = m
	return q // DivMod rounds toward -inf for positive denominators
}

func ceil(r *big.Rat) *big.Int {
	f := floor(r)
	if !r.IsInt() {
		f.Add(f, big.NewInt(1))
	}
	return f
}

// regex compiles a regular expression the compiler wrote (Full mode, its
// characters spelled as in JSON strings).
func (c *compiler) regex(re, ptr string) grammar.Expr {
	x, err := regex.Expr(c.file, re, regex.Options{Mode: regex.Full, Pos: c.pos(ptr), Char: c.charsAt})
	if err != nil {
		c.errorf(ptr, "internal: %v", err)
		return nil
	}
	return x
}

// str returns the strings schema s allows: "…" around the characters
// minLength/maxLength, pattern or format allow, each character in its
// canonical spelling.
func (c *compiler) str(s *Value, ptr string) grammar.Expr {
	lo, hi, ok := c.bounds(s, ptr, "minLength", "maxLength")
	if !ok {
		return nil
	}
	pat, fmtv := s.Get("pattern"), s.Get("format")
	lengths := lo > 0 || hi >= 0
	var body grammar.Expr
	switch {
	case pat != nil && fmtv != nil:
		c.errorf(ptr+"/pattern", "pattern beside format is not supported")
		return nil
	case (pat != nil || fmtv != nil) && lengths:
		k := "pattern"
		if fmtv != nil {
			k = "format"
		}
		c.errorf(ptr+"/"+k, "%s beside minLength/maxLength is not supported", k)
		return nil
	case pat != nil:
		if pat.Kind != String {
			c.errorf(ptr+"/pattern", "pattern must be a string")
			return nil
		}
		x, err := regex.Expr(c.file, pat.Str, regex.Options{Mode: regex.Search,
			Pos: grammar.Pos{Filename: c.file + "#" + ptr + "/pattern", Line: 1, Col: 1}, Char: c.charsAt, Rules: &c.rules})
		if err != nil {
			c.errs = append(c.errs, err.(grammar.ErrorList)...)
			return nil
		}
		body = c.patternRule(ptr, x)
	case fmtv != nil:
		if fmtv.Kind != String {
			c.errorf(ptr+"/format", "format must be a string")
			return nil
		}
		body = c.format(fmtv.Str, ptr+"/format")
	default:
		body = c.chars0(lo, hi)
	}
	return seq(lit(`"`), body, lit(`"`))
}

// chars0 is lo to hi (-1: any number of) characters of a JSON string.
// Up to a maxLength, it is the repetition itself, whose links (a rule per
// position) every such string shares (grammar.Compile), so that strings
// of two maxLengths are alike far from their bounds; otherwise it is the
// shared rule of its length range, so that strings of one range are (a
// minLength's first characters are that rule's own).
func (c *compiler) chars0(lo, hi int) grammar.Expr {
	if lo == 0 && hi >= 0 {
		return rep(c.char(), lo, hi)
	}
	return c.rule(fmt.Sprintf("chars{%d,%d}", lo, hi), "", func() grammar.Expr {
		return rep(c.char(), lo, hi)
	})
}

// char is the shared rule of one character of a JSON string.
func (c *compiler) char() grammar.Expr {
	return c.rule("char", "", func() grammar.Expr {
		return c.chars([]grammar.RuneRange{{Lo: 0, Hi: 0x10FFFF}})
	})
}

// charsAt is pkg/regex's character hook: chars, with the set of all
// characters (a pattern's ".*" ends) as the shared rule.
func (c *compiler) charsAt(rs []grammar.RuneRange, _ grammar.Pos) grammar.Expr {
	if len(rs) == 1 && rs[0].Lo == 0 && rs[0].Hi >= 0x10FFFF {
		return c.char()
	}
	return c.chars(rs)
}

// chars spells a set of characters inside a JSON string: as themselves,
// except '"', '\' and the control characters, which are escaped.
func (c *compiler) chars(rs []grammar.RuneRange) grammar.Expr {
	var raw []grammar.RuneRange
	var escapes []string
	for _, r := range rs {
		for ch := r.Lo; ch <= r.Hi && ch < 0x20; ch++ {
			escapes = append(escapes, escapeOf(ch))
		}
		lo := max(r.Lo, 0x20)
		for _, sp := range []rune{'"', '\\'} {
			if lo <= sp && sp <= r.Hi {
				if lo < sp {
					raw = append(raw, grammar.RuneRange{Lo: lo, Hi: sp - 1})
				}
				escapes = append(escapes, escapeOf(sp))
				lo = sp + 1
			}
		}
		if lo <= r.Hi {
			raw = append(raw, grammar.RuneRange{Lo: lo, Hi: r.Hi})
		}
	}
	var xs []grammar.Expr
	if len(raw) > 0 && !onlySurrogates(raw) {
		xs = append(xs, &grammar.Class{Ranges: raw})
	}
	if len(escapes) > 0 {
		xs = append(xs, factored(escapes))
	}
	return alt(xs...)
}

// factored spells a set of ASCII strings as a trie: alternatives that
// share a prefix share its symbols, and the last bytes of a level are one
// class. The escapes of a JSON string are then "\\" and a choice, not 34
// alternatives of their own: an Earley State inside a string predicts
// one item for them rather than 34 (States at every position of a string
// or member name were three times larger, and slower to build).
func factored(ss []string) grammar.Expr {
	slices.Sort(ss)
	ss = slices.Compact(ss)
	var last []grammar.RuneRange // strings of one byte
	var xs []grammar.Expr
	for i := 0; i < len(ss); {
		if ss[i] == "" {
			xs = append(xs, seq())
			i++
			continue
		}
		b := ss[i][0]
		j := i
		var rests []string
		for ; j < len(ss) && ss[j] != "" && ss[j][0] == b; j++ {
			rests = append(rests, ss[j][1:])
		}
		if len(rests) == 1 && rests[0] == "" {
			last = append(last, grammar.RuneRange{Lo: rune(b), Hi: rune(b)})
		} else {
			xs = append(xs, seq(lit(string(b)), factored(rests)))
		}
		i = j
	}
	if len(last) > 0 {
		xs = append(xs, &grammar.Class{Ranges: last})
	}
	return alt(xs...)
}

func onlySurrogates(rs []grammar.RuneRange) bool {
	for _, r := range rs {
		if r.Lo < 0xD800 || r.Hi > 0xDFFF {
			return false
		}
	}
	return true
}

// intRange returns a regular expression for the canonical integers in
// [lo, hi] (nil: unbounded), or "" if there are none.
func intRange(lo, hi *big.Int) string {
	if lo != nil && hi != nil && lo.Cmp(hi) > 0 {
		return ""
	}
	var alts []string
	zero, minus1 := big.NewInt(0), big.NewInt(-1)
	if lo == nil || lo.Sign() < 0 { // negatives: -[|hi'|, |lo|] with hi' = min(hi, -1)
		h := minus1
		if hi != nil && hi.Cmp(minus1) < 0 {
			h = hi
		}
		a := new(big.Int).Neg(h).String()
		b := ""
		if lo != nil {
			b = new(big.Int).Neg(lo).String()
		}
		alts = append(alts, "-(?:"+natRange(a, b)+")")
	}
	if hi == nil || hi.Sign() >= 0 {
		l := zero
		if lo != nil && lo.Sign() > 0 {
			l = lo
		}
		b := ""
		if hi != nil {
			b = hi.String()
		}
		alts = append(alts, natRange(l.String(), b))
	}
	return strings.Join(alts, "|")
}

// natRange is a regular expression for the naturals in [a, b], written
// without leading zeros; b == "" means unbounded.
func natRange(a, b string) string {
	var alts []string
	if a == "0" {
		alts = append(alts, "0")
		if b == "0" {
			return "0"
		}
		a = "1"
	}
	top := len(b)
	if b == "" {
		top = len(a)
	}
	for n := len(a); n <= top; n++ {
		x, y := "1"+strings.Repeat("0", n-1), strings.Repeat("9", n)
		if n == len(a) {
			x = a
		}
		if b != "" && n == len(b) {
			y = b
		}
		alts = append(alts, sameLength(x, y))
	}
	if b == "" {
		alts = append(alts, fmt.Sprintf("[1-9][0-9]{%d,}", len(a)))
	}
	return strings.Join(alts, "|")
}

// sameLength is a regular expression for the digit strings of x's length
// between x and y (x <= y), leading zeros included.
func sameLength(x, y string) string {
	if x == y {
		return x
	}
	i := 0
	for x[i] == y[i] {
		i++
	}
	p, dx, dy, n := x[:i], x[i], y[i], len(x)-i-1
	xr, yr := x[i+1:], y[i+1:]
	if xr == strings.Repeat("0", n) && yr == strings.Repeat("9", n) {
		return p + digitClass(dx, dy) + anyDigits(n)
	}
	alts := []string{p + string(dx) + "(?:" + sameLength(xr, strings.Repeat("9", n)) + ")"}
	if dx+1 <= dy-1 {
		alts = append(alts, p+digitClass(dx+1, dy-1)+anyDigits(n))
	}
	alts = append(alts, p+string(dy)+"(?:"+sameLength(strings.Repeat("0", n), yr)+")")
	return strings.Join(alts, "|")
}

func digitClass(a, b byte) string {
	if a == b {
		return string(a)
	}
	return "[" + string(a) + "-" + string(b) + "]"
}

func anyDigits(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("[0-9]{%d}", n)
}
