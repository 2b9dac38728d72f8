package main

import (
	"bytes"
	"strings"
	"testing"
)

// nb is a one-cell notebook whose cell prints text and displays html.
func nb(text, html string) []byte {
	return []byte(`{"nbformat": 4, "cells": [
 {"cell_type": "markdown", "id": "m", "source": "x"},
 {"cell_type": "code", "id": "c1", "outputs": [
  {"output_type": "stream", "name": "stdout", "text": ["go: added example.com/x v1\n", ` + quote(text) + `]},
  {"output_type": "display_data", "data": {"text/html": ` + quote(html) + `}}]}]}`)
}

func quote(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	b.WriteString(strings.NewReplacer(`"`, `\"`, "\n", `\n`).Replace(s))
	b.WriteByte('"')
	return b.String()
}

func TestCompare(t *testing.T) {
	base := nb("KL 0.25 in 1.5s, scratch /tmp/gonb_ab12/x, store /work/a/mcmc/quick\n", "<svg>1</svg>")
	for _, c := range []struct {
		name  string
		nb    []byte
		diffs int
	}{
		{"same", base, 0},
		{"other timing, scratch path and checkout", nb("KL 0.25 in 2m3.25s, scratch /tmp/gonb_ff00/x, store /ci/b-c/mcmc/quick\n", "<svg>1</svg>"), 0},
		{"other number", nb("KL 0.26 in 1.5s, scratch /tmp/gonb_ab12/x, store /work/a/mcmc/quick\n", "<svg>1</svg>"), 1},
		{"other store", nb("KL 0.25 in 1.5s, scratch /tmp/gonb_ab12/x, store /work/a/mcmc/demo\n", "<svg>1</svg>"), 1},
		{"other figure", nb("KL 0.25 in 1.5s, scratch /tmp/gonb_ab12/x, store /work/a/mcmc/quick\n", "<svg>2</svg>"), 1},
	} {
		diffs, err := Compare(base, c.nb)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(diffs) != c.diffs {
			t.Errorf("%s: %d differences, want %d: %v", c.name, len(diffs), c.diffs, diffs)
		}
		for _, d := range diffs {
			if !strings.Contains(d, "cell c1") {
				t.Errorf("%s: %q does not name the cell", c.name, d)
			}
		}
	}
	other := []byte(`{"nbformat": 4, "cells": [{"cell_type": "code", "id": "c2", "outputs": []}]}`)
	if _, err := Compare(base, other); err == nil {
		t.Error("notebooks with other cells compared without error")
	}
}

func TestHasOutputs(t *testing.T) {
	empty := []byte(`{"nbformat": 4, "cells": [{"cell_type": "code", "id": "c1", "outputs": []}]}`)
	for _, c := range []struct {
		nb   []byte
		want bool
	}{{empty, false}, {nb("x\n", "<p>y</p>"), true}} {
		got, err := HasOutputs(c.nb)
		if err != nil || got != c.want {
			t.Errorf("HasOutputs = %v, %v; want %v", got, err, c.want)
		}
	}
	if _, err := HasOutputs([]byte(`{"cells": [{"cell_type": "code", "outputs": []}]}`)); err == nil {
		t.Error("a code cell without id accepted")
	}
}

// TestCompareInterleaving: the order of stream text and displays, and how
// the stream is split into outputs, vary between runs and are not compared.
func TestCompareInterleaving(t *testing.T) {
	a := []byte(`{"cells": [{"cell_type": "code", "id": "c", "outputs": [
 {"output_type": "stream", "name": "stdout", "text": "one\ntwo\n"},
 {"output_type": "display_data", "data": {"text/html": "<p>x</p>"}}]}]}`)
	b := []byte(`{"cells": [{"cell_type": "code", "id": "c", "outputs": [
 {"output_type": "stream", "name": "stdout", "text": "one\n"},
 {"output_type": "display_data", "data": {"text/html": "<p>x</p>"}},
 {"output_type": "stream", "name": "stdout", "text": "two\n"}]}]}`)
	if diffs, err := Compare(a, b); err != nil || len(diffs) != 0 {
		t.Errorf("Compare = %v, %v; want no difference", diffs, err)
	}
	c := bytes.Replace(b, []byte(`"two\n"`), []byte(`"three\n"`), 1)
	if diffs, _ := Compare(a, c); len(diffs) != 1 {
		t.Errorf("other stream text: %d differences, want 1", len(diffs))
	}
}
