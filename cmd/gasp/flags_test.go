package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestCmdLine checks the conventions cmdLine carries: -h on stdout with code
// 0, a bad flag or argument as "NAME: MSG" and the usage on stderr with code
// 2, a failure as "NAME: ERR" with code 1.
func TestCmdLine(t *testing.T) {
	newCL := func() (*cmdLine, *bytes.Buffer, *bytes.Buffer) {
		var out, errOut bytes.Buffer
		cl := newCmdLine("gasp t", "gasp t [--n N]", "Does t.", &out, &errOut)
		cl.Int("n", 1, "how many")
		return cl, &out, &errOut
	}
	cl, out, errOut := newCL()
	if done, code := cl.parseNoArgs([]string{"-h"}); !done || code != 0 || !strings.HasPrefix(out.String(), "usage: gasp t [--n N]\n\nDoes t.\n") || errOut.Len() > 0 {
		t.Errorf("-h: done %v, code %d, stdout %q, stderr %q", done, code, out, errOut)
	}
	cl, out, errOut = newCL()
	if done, code := cl.parseNoArgs([]string{"--n", "2", "extra"}); !done || code != 2 ||
		!strings.HasPrefix(errOut.String(), "gasp t: unexpected arguments [\"extra\"]\nusage: gasp t") || out.Len() > 0 {
		t.Errorf("positional argument: done %v, code %d, stdout %q, stderr %q", done, code, out, errOut)
	}
	cl, _, errOut = newCL()
	if done, code := cl.parseNoArgs([]string{"--n", "x"}); !done || code != 2 || !strings.Contains(errOut.String(), "usage: gasp t") {
		t.Errorf("bad flag value: done %v, code %d, stderr %q", done, code, errOut)
	}
	cl, _, errOut = newCL()
	if done, code := cl.parseNoArgs([]string{"--n", "3"}); done || code != 0 || errOut.Len() > 0 {
		t.Errorf("good flags: done %v, code %d, stderr %q", done, code, errOut)
	}
	if code := cl.fail(errors.New("boom")); code != 1 || errOut.String() != "gasp t: boom\n" {
		t.Errorf("fail: code %d, stderr %q", code, errOut)
	}
}
