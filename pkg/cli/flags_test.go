package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestCmdLine checks the conventions cmdLine carries: -h on stdout with code
// 0, a bad flag or argument as "NAME: MSG" and one line saying where the
// usage is on stderr with code 2 (not the usage, which would bury the
// error), a failure as "NAME: ERR" with code 1.
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
		errOut.String() != "gasp t: unexpected arguments [\"extra\"]\nRun \"gasp help t\" for its usage.\n" || out.Len() > 0 {
		t.Errorf("positional argument: done %v, code %d, stdout %q, stderr %q", done, code, out, errOut)
	}
	cl, _, errOut = newCL()
	if done, code := cl.parseNoArgs([]string{"--n", "x"}); !done || code != 2 || errOut.String() != "gasp t: invalid value \"x\" for flag -n: parse error\nRun \"gasp help t\" for its usage.\n" {
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

// A user's bad flag gets its error and where the usage is, two lines, not
// the ninety of the help (exit 2); the pointer works.
func TestBadFlagPointsToHelp(t *testing.T) {
	for _, args := range [][]string{
		{"sample", "--grammar", "g", "--prompt", "p", "--k", "-1"},
		{"sample", "--grammar", "g", "--prompt", "p", "--method", "mcmc-foo"},
		{"sample", "--no-such-flag"},
		{"demo", "--runs", "0"},
		{"bench", "lm", "--batch", "x"},
		{"bench", "masks", "--passes", "0"},
	} {
		code, out, errOut := gasp(args...)
		lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
		cmd := args[0]
		if cmd == "bench" {
			cmd += " " + args[1]
		}
		hint := "Run \"gasp help " + cmd + "\" for its usage."
		if code != 2 || out != "" || len(lines) != 2 || lines[1] != hint || !strings.HasPrefix(lines[0], "gasp "+cmd+": ") {
			t.Errorf("gasp %q: exit %d, stdout %q, stderr %q; want exit 2, the error and %q", args, code, out, errOut, hint)
			continue
		}
		if code, help, _ := gasp(append([]string{"help"}, strings.Fields(cmd)...)...); code != 0 || !strings.HasPrefix(help, "usage: gasp "+cmd) {
			t.Errorf("gasp help %s: exit %d, %q", cmd, code, help)
		}
	}
}
