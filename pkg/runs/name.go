package runs

import (
	"fmt"
	"strconv"
	"strings"
)

// escape turns a task or method name into one path element: bytes outside
// [A-Za-z0-9._-], '%' and a leading '.' become %XX (upper-case hex). The
// mapping is injective, so distinct names never share a file, and
// unescape inverts it.
func escape(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '_' || c == '.' && i > 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// unescape inverts escape.
func unescape(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+3 > len(s) {
			return "", fmt.Errorf("bad escape in %q", s)
		}
		c, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("bad escape in %q", s)
		}
		b.WriteByte(byte(c))
		i += 2
	}
	return b.String(), nil
}

// entryName returns the task or method name that elem, the name of the
// task directory or record file path without its extension, escapes. A
// name that escape does not produce (a bad or lower-case %XX, a leading
// dot, a byte it escapes) is an error naming path: a store never skips a
// directory or file it cannot read.
func entryName(path, elem string) (string, error) {
	name, err := unescape(elem)
	if err == nil && escape(name) != elem {
		err = fmt.Errorf("%q is not how a name is escaped (%q would be)", elem, escape(name))
	}
	if err != nil {
		return "", fmt.Errorf("runs: %s: not a task or method name of a run store: %w", path, err)
	}
	return name, nil
}
