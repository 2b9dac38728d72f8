package jsonschema

import (
	"fmt"
	"strings"

	"github.com/gasplab/gasp/pkg/grammar"
)

// formats maps each supported "format" to a regular expression (over the
// decoded string, Full mode) for exactly the strings it names:
//
//	date       RFC 3339 full-date, with the days of each month and leap years
//	time       RFC 3339 full-time ("T" and "Z" in either case), a leap
//	           second (:60) only at 23:59 UTC, after applying the offset
//	date-time  RFC 3339 date-time: full-date [Tt] full-time
//	uuid       RFC 9562 string form, hex digits in either case
//	ipv4       RFC 2673 dotted-quad: four 0-255 without leading zeros
//	ipv6       RFC 4291 text form (RFC 3986 IPv6address), no zone index
//	uri        RFC 3986 URI (scheme ":" hier-part [?query] [#fragment]),
//	           IPv6 hosts included, except two forms Go's net/url (which
//	           validators use) rejects: a host name may not hold
//	           percent-encoded octets, and IPvFuture hosts ([v1.x]) are out
//	email      RFC 5321 Mailbox: a dot-atom or quoted-string local part
//	           (quoted-pairs such as \" excluded: validators disagree on them), "@",
//	           a domain or an IPv4/IPv6 address literal; general address
//	           literals (tag:content) are not included, and length limits
//	           (64-octet local part, 255-octet domain) are not checked
var formats = map[string]string{
	"date":      date,
	"time":      timeRE, // and leapOffsets
	"date-time": date + `[Tt]` + timeRE,
	"uuid":      `[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}`,
	"ipv4":      ipv4,
	"ipv6":      ipv6,
	"uri":       uri,
	"email": `(?:[A-Za-z0-9!#$%&'*+/=?^_` + "`" + `{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_` + "`" + `{|}~-]+)*|"[ !#-\[\]-~]*")@` +
		`(?:` + label + `(?:\.` + label + `)*|\[(?:` + ipv4 + `|IPv6:` + ipv6RE() + `)\])`,
}

const (
	leapYear = `(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)`
	date     = `(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))|` + leapYear + `-02-29)`
	octet    = `(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])`
	ipv4     = octet + `\.` + octet + `\.` + octet + `\.` + octet
	h16      = `[0-9A-Fa-f]{1,4}`
	ls32     = `(?:` + h16 + `:` + h16 + `|` + ipv4 + `)`
	label    = `[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?`
	pchar    = `(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})`
)

var (
	// timeRE is full-time but for leap seconds with a numeric offset,
	// which leapOffsets adds as a grammar expression (as a regular
	// expression they would be thousands of nested groups).
	timeRE = `(?:(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])|23:59:60(?:\.[0-9]+)?[Zz])`
	ipv6   = ipv6RE()
	uri    = uriRE()
)

// format returns the strings of a supported format, shared as a rule.
func (c *compiler) format(name, ptr string) grammar.Expr {
	re, ok := formats[name]
	if !ok {
		c.errorf(ptr, "format %q is not supported", name)
		return nil
	}
	return c.rule("format:"+name, ptr, func() grammar.Expr {
		switch name {
		case "time":
			return alt(c.regex(re, ptr), c.leapOffsets(ptr))
		case "date-time":
			return seq(c.regex(date+`[Tt]`, ptr), alt(c.regex(timeRE, ptr), c.leapOffsets(ptr)))
		}
		return c.regex(re, ptr)
	})
}

// leapOffsets is a leap second with a numeric offset: the local time that
// is 23:59 UTC under the offset, ":60", an optional fraction, the offset.
// Every local time has one such offset of each sign. The alternatives are
// nested by hour, then minute, so that a State holds at most 60 of them
// rather than all 2,880 pairs: a flat alternation made every mask inside
// a time string walk thousands of items.
func (c *compiler) leapOffsets(ptr string) grammar.Expr {
	return c.rule("leap", ptr, func() grammar.Expr {
		frac := c.rule("leapfrac", ptr, func() grammar.Expr { return c.regex(`(?:\.[0-9]+)?`, ptr) })
		const leapUTC = 23*60 + 59
		hours := make([]grammar.Expr, 24)
		for h := range hours {
			minutes := make([]grammar.Expr, 60)
			for m := range minutes {
				local := h*60 + m
				plus := offset('+', (local-leapUTC+1440)%1440)
				minus := offset('-', (leapUTC-local+1440)%1440)
				minutes[m] = seq(lit(fmt.Sprintf("%02d:60", m)), frac, alt(lit(plus), lit(minus)))
			}
			hours[h] = seq(lit(fmt.Sprintf("%02d:", h)), alt(minutes...))
		}
		return alt(hours...)
	})
}

// offset writes a time-offset of minutes (0 to 1439) with its sign.
func offset(sign byte, minutes int) string {
	return fmt.Sprintf("%c%02d:%02d", sign, minutes/60, minutes%60)
}

func ipv6RE() string {
	h := func(n int) string { return fmt.Sprintf(`(?:%s:){%d}`, h16, n) }
	pre := func(n int) string { // [ *n( h16 ":" ) h16 ]
		if n == 0 {
			return `(?:` + h16 + `)?`
		}
		return fmt.Sprintf(`(?:(?:%s:){0,%d}%s)?`, h16, n, h16)
	}
	alts := []string{
		h(6) + ls32,
		`::` + h(5) + ls32,
		pre(0) + `::` + h(4) + ls32,
		pre(1) + `::` + h(3) + ls32,
		pre(2) + `::` + h(2) + ls32,
		pre(3) + `::` + h16 + `:` + ls32,
		pre(4) + `::` + ls32,
		pre(5) + `::` + h16,
		pre(6) + `::`,
	}
	return `(?:` + strings.Join(alts, "|") + `)`
}

func uriRE() string {
	seg := pchar + `*`
	segNZ := pchar + `+`
	userinfo := `(?:[A-Za-z0-9._~!$&'()*+,;=:-]|%[0-9A-Fa-f]{2})*`
	regName := `[A-Za-z0-9._~!$&'()*+,;=-]*` // no pct-encoded octets: see formats
	ipLiteral := `\[` + ipv6RE() + `\]`      // no IPvFuture: see formats
	authority := `(?:` + userinfo + `@)?(?:` + ipLiteral + `|` + regName + `)(?::[0-9]*)?`
	hier := `(?://` + authority + `(?:/` + seg + `)*|/(?:` + segNZ + `(?:/` + seg + `)*)?|` + segNZ + `(?:/` + seg + `)*|)`
	qf := `(?:` + pchar + `|[/?])*`
	return `[A-Za-z][A-Za-z0-9+.-]*:` + hier + `(?:\?` + qf + `)?(?:#` + qf + `)?`
}
