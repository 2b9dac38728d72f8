package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The notebooks in testdata/executed are testdata/*.ipynb as GoNB v0.11.3
// executed them (scripts/notebooks-run.sh writes such copies).
func TestCheckExecuted(t *testing.T) {
	for name, want := range map[string][]Problem{
		"pass.ipynb":       nil,
		"fail-exit.ipynb":  {{1, "exit status 3"}},
		"fail-error.ipynb": {{1, "error: deliberate"}},
		"fail-panic.ipynb": {{2, "panic: deliberate"}, {2, "exit status 2"}},
		"fail-test.ipynb":  {{2, "--- FAIL: TestDeliberate (0.00s)"}, {2, "FAIL"}, {2, "exit status 1"}},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", "executed", name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Check(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
}

func TestCheckOutputs(t *testing.T) {
	const head = `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "markdown", "source": "x"}, `
	for _, c := range []struct {
		cells string
		want  []Problem
	}{
		{`{"cell_type": "code", "outputs": [{"output_type": "error", "ename": "ERROR", "evalue": "undefined: x", "traceback": []}]}`,
			[]Problem{{1, "error output: ERROR: undefined: x"}}},
		{`{"cell_type": "code", "outputs": []}, {"cell_type": "code", "outputs": [{"output_type": "stream", "name": "stdout", "text": "ok\nfatal error: all goroutines are asleep - deadlock!\r\n"}]}`,
			[]Problem{{2, "fatal error: all goroutines are asleep - deadlock!"}}},
		{`{"cell_type": "code", "outputs": [{"output_type": "display_data", "data": {"text/html": "<pre>exit status 1</pre>", "text/plain": "signal: killed"}}]}`,
			[]Problem{{1, "exit status 1"}, {1, "signal: killed"}}},
		{`{"cell_type": "code", "outputs": [{"output_type": "stream", "name": "stderr", "text": ["exit status 0\n", "a panic: is not at the start\n", "FAILED\n", "no error: here\n", "errors: 0\n"]}]}`,
			nil},
		{`{"cell_type": "code", "outputs": [{"output_type": "stream", "name": "stdout", "text": ["ok\n", "error: open x: no such file\n"]}]}`,
			[]Problem{{1, "error: open x: no such file"}}},
		{`{"cell_type": "code", "outputs": [{"output_type": "stream", "name": "stdout", "text": ["FAIL\tgithub.com/x/y\t0.1s\n"]}]}`,
			[]Problem{{1, "FAIL\tgithub.com/x/y\t0.1s"}}},
	} {
		got, err := Check([]byte(head + c.cells + `]}`))
		if err != nil {
			t.Fatalf("%s: %v", c.cells, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\ngot  %v\nwant %v", c.cells, got, c.want)
		}
	}
}

func TestCheckBadInput(t *testing.T) {
	for _, in := range []string{``, `[]`, `{"cells": []}`, `{"nbformat": 3, "cells": []}`,
		`{"nbformat": 4, "cells": [{"cell_type": "code", "outputs": [{"output_type": "stream", "text": 7}]}]}`} {
		if _, err := Check([]byte(in)); err == nil {
			t.Errorf("Check(%q): no error", in)
		}
	}
}

func TestRun(t *testing.T) {
	var out, errb bytes.Buffer
	pass := filepath.Join("testdata", "executed", "pass.ipynb")
	fail := filepath.Join("testdata", "executed", "fail-exit.ipynb")
	if code := run([]string{pass}, &out, &errb); code != 0 || out.Len() != 0 {
		t.Errorf("pass: exit %d, output %q %q", code, out.String(), errb.String())
	}
	if code := run([]string{pass, fail}, &out, &errb); code != 1 || !strings.Contains(out.String(), fail+": cell 1: exit status 3") {
		t.Errorf("fail: exit %d, output %q", code, out.String())
	}
	if code := run([]string{"testdata/missing.ipynb"}, &out, &errb); code != 2 {
		t.Errorf("missing file: exit %d", code)
	}
}
