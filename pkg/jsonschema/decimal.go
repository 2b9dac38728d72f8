package jsonschema

import (
	"math/big"
	"strings"
)

// This file writes regular expressions for the plain decimals in an
// interval: the canonical numbers (no exponent, no leading zeros, no
// trailing fractional zeros, no "-0") whose value lies between two bounds.
// A number is an integer part I and a fraction f, a string of digits that
// is empty or ends in 1-9; for a fixed I, numbers compare as their
// fractions do lexicographically, which is what lets a bound be written
// digit by digit.

// bound is an end of an interval: nil for an open end.
type bound struct {
	val  *big.Rat
	incl bool
}

// decimalRange returns a regular expression for the canonical decimals x
// with lo <= x <= hi (< where a bound is exclusive), or "" if there are none.
func decimalRange(lo, hi *bound) string {
	if lo != nil && hi != nil {
		if c := lo.val.Cmp(hi.val); c > 0 || c == 0 && !(lo.incl && hi.incl) {
			return ""
		}
	}
	zero := new(big.Rat)
	var alts []string
	// Negative x: magnitude in [max(-hi, 0 exclusive), -lo].
	if lo == nil || lo.val.Sign() < 0 {
		mlo := &bound{zero, false}
		if hi != nil && hi.val.Sign() < 0 {
			mlo = &bound{new(big.Rat).Neg(hi.val), hi.incl}
		}
		var mhi *bound
		if lo != nil {
			mhi = &bound{new(big.Rat).Neg(lo.val), lo.incl}
		}
		if re := magnitudeRange(mlo, mhi); re != "" {
			alts = append(alts, "-(?:"+re+")")
		}
	}
	// x >= 0.
	if hi == nil || hi.val.Sign() > 0 || hi.val.Sign() == 0 && hi.incl {
		nlo := &bound{zero, true}
		if lo != nil && lo.val.Sign() >= 0 {
			nlo = lo
		}
		if re := magnitudeRange(nlo, hi); re != "" {
			alts = append(alts, re)
		}
	}
	return strings.Join(alts, "|")
}

// splitDecimal returns the integer part and fraction of a non-negative
// rational with a finite decimal expansion.
func splitDecimal(r *big.Rat) (ip, frac string) {
	s := canonicalNumber(r.FloatString(decimalPlaces(r)))
	ip, frac, _ = strings.Cut(s, ".")
	return ip, frac
}

// decimalPlaces is the number of fractional digits r needs (r's
// denominator divides a power of ten: it came from a decimal literal).
func decimalPlaces(r *big.Rat) int {
	d := new(big.Int).Set(r.Denom())
	n := 0
	ten := big.NewInt(10)
	for d.Cmp(big.NewInt(1)) != 0 && n < 2000 {
		g := new(big.Int).GCD(nil, nil, d, ten)
		if g.Cmp(big.NewInt(1)) == 0 {
			break
		}
		d.Div(d, g)
		n++
	}
	return n
}

// fset is a set of fractions: eps says whether the empty fraction is in
// it, re (when has) is a regular expression for its non-empty members.
type fset struct {
	eps bool
	re  string
	has bool
}

// anyFrac is every fraction; fracPlus every non-empty one.
var (
	anyFrac  = fset{eps: true, re: `[0-9]*[1-9]`, has: true}
	fracPlus = `[0-9]*[1-9]`
)

// number writes I followed by the fractions of s ("" if none).
func (s fset) number(ip string) string {
	switch {
	case s.has && s.eps:
		return ip + `(?:\.(?:` + s.re + `))?`
	case s.has:
		return ip + `\.(?:` + s.re + `)`
	case s.eps:
		return ip
	}
	return ""
}

// magnitudeRange is the non-negative canonical decimals in [lo, hi] (hi
// nil: unbounded); lo is not nil.
func magnitudeRange(lo, hi *bound) string {
	li, lf := splitDecimal(lo.val)
	var alts []string
	add := func(s string) {
		if s != "" {
			alts = append(alts, "(?:"+s+")")
		}
	}
	if hi == nil {
		add(geFrac(lf, lo.incl).number(li))
		add(anyFrac.number("(?:" + natRange(inc(li), "") + ")"))
		return strings.Join(alts, "|")
	}
	hiI, hf := splitDecimal(hi.val)
	if li == hiI {
		add(rangeFrac(lf, hf, lo.incl, hi.incl).number(li))
		return strings.Join(alts, "|")
	}
	add(geFrac(lf, lo.incl).number(li))
	if a, b := inc(li), dec(hiI); cmpNat(a, b) <= 0 {
		add(anyFrac.number("(?:" + natRange(a, b) + ")"))
	}
	add(leFrac(hf, hi.incl).number(hiI))
	return strings.Join(alts, "|")
}

func inc(n string) string {
	v, _ := new(big.Int).SetString(n, 10)
	return v.Add(v, big.NewInt(1)).String()
}

func dec(n string) string {
	v, _ := new(big.Int).SetString(n, 10)
	return v.Sub(v, big.NewInt(1)).String()
}

func cmpNat(a, b string) int {
	x, _ := new(big.Int).SetString(a, 10)
	y, _ := new(big.Int).SetString(b, 10)
	return x.Cmp(y)
}

// union joins regular expressions, skipping none.
func union(res ...string) (string, bool) {
	var out []string
	for _, r := range res {
		if r != "" {
			out = append(out, "(?:"+r+")")
		}
	}
	return strings.Join(out, "|"), len(out) > 0
}

// prefix is the non-empty fractions c+g for g in s (g empty only if c is
// not 0, so that the fraction does not end in 0).
func prefix(c byte, s fset) string {
	var res []string
	if s.has {
		res = append(res, string(c)+"(?:"+s.re+")")
	}
	if s.eps && c != '0' {
		res = append(res, string(c))
	}
	r, _ := union(res...)
	return r
}

// digitsThen is the non-empty fractions starting with a digit in [a, b]
// (the rest any fraction, empty only after a non-zero digit).
func digitsThen(a, b byte) string {
	if a > b {
		return ""
	}
	r := digitClass(a, b) + `(?:` + fracPlus + `)`
	if nz := max(a, '1'); nz <= b {
		r += "|" + digitClass(nz, b)
	}
	return r
}

// geFrac is the fractions >= a (> a if !incl).
func geFrac(a string, incl bool) fset {
	if a == "" {
		return fset{eps: incl, re: fracPlus, has: true}
	}
	re, has := union(prefix(a[0], geFrac(a[1:], incl)), digitsThen(a[0]+1, '9'))
	return fset{re: re, has: has}
}

// leFrac is the fractions <= b (< b if !incl).
func leFrac(b string, incl bool) fset {
	if b == "" {
		return fset{eps: incl}
	}
	var lower string
	if b[0] > '0' {
		lower = digitsThen('0', b[0]-1)
	}
	re, has := union(lower, prefix(b[0], leFrac(b[1:], incl)))
	return fset{eps: true, re: re, has: has}
}

// rangeFrac is the fractions between a and b (a <= b).
func rangeFrac(a, b string, ai, bi bool) fset {
	if a == "" {
		s := leFrac(b, bi)
		s.eps = ai && (b != "" || bi)
		return s
	}
	if a[0] == b[0] {
		re, has := union(prefix(a[0], rangeFrac(a[1:], b[1:], ai, bi)))
		return fset{re: re, has: has}
	}
	re, has := union(prefix(a[0], geFrac(a[1:], ai)), digitsThen(a[0]+1, b[0]-1), prefix(b[0], leFrac(b[1:], bi)))
	return fset{re: re, has: has}
}
