package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// A committed notebook carries the outputs of its last execution
// (scripts/notebooks-outputs.sh), so that a reader sees them without
// running anything. Compare checks that they are still what the code makes:
// each code cell's outputs, by cell id, against a fresh execution's, equal
// after masking what legitimately changes from run to run (normalize).

// durationRe matches a Go duration or a time in seconds ("1.5s", "2m50s",
// "169.3 s", "12ms"); tmpRe a path under /tmp (GoNB's scratch module, the
// notebooks' scratch directories); goLogRe the lines "go get" prints.
var (
	durationRe = regexp.MustCompile(`\b(\d+(\.\d+)?(h|m|s|ms|µs|us|ns))+\b|\b\d+(\.\d+)? s\b`)
	tmpRe      = regexp.MustCompile(`/tmp/[^\s"'<>)]*`)
	goLogRe    = regexp.MustCompile(`(?m)^go: .*\n?`)
)

// repoRe matches the checkout's directory in an absolute path into one of
// its top-level directories, which differs between checkouts.
var repoRe = regexp.MustCompile(`(/[^\s/"'<>]+)+/(mcmc|analysis|data|notebooks|experiments|pkg|cmd|\.cache)/`)

// normalize masks the run-dependent parts of an output's text: times,
// temporary paths, the checkout's directory and go get's log.
func normalize(s string) string {
	s = goLogRe.ReplaceAllString(s, "")
	s = repoRe.ReplaceAllString(s, "⟨repo⟩/$2/")
	s = tmpRe.ReplaceAllString(s, "⟨tmp⟩")
	return durationRe.ReplaceAllString(s, "⟨time⟩")
}

// cellOutputs are a notebook's code cells' outputs, normalized, by cell id.
type cellOutputs struct {
	order []string
	out   map[string][]string
}

func readOutputs(data []byte) (*cellOutputs, error) {
	var nb struct {
		Cells []struct {
			ID       string `json:"id"`
			CellType string `json:"cell_type"`
			Outputs  []struct {
				Name  string                     `json:"name"` // stream: stdout or stderr
				Text  multiline                  `json:"text"`
				Data  map[string]json.RawMessage `json:"data"`
				EName string                     `json:"ename"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		return nil, fmt.Errorf("not a notebook: %v", err)
	}
	co := &cellOutputs{out: map[string][]string{}}
	for i, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		if c.ID == "" {
			return nil, fmt.Errorf("cell %d has no id", i+1)
		}
		// A cell's program writes its stream text and its displays through
		// different channels, so their interleaving varies from run to
		// run: each stream is compared as one text, the displays in order.
		var displays []string
		streams := map[string]string{}
		for _, o := range c.Outputs {
			if o.EName != "" {
				displays = append(displays, "error: "+o.EName)
			}
			streams[o.Name] += string(o.Text)
			for _, mime := range sortedMimes(o.Data) {
				var text multiline
				if err := json.Unmarshal(o.Data[mime], &text); err != nil {
					text = multiline(o.Data[mime]) // a JSON object, compared as it is
				}
				displays = append(displays, mime+": "+normalize(string(text)))
			}
		}
		var outs []string
		for _, name := range []string{"stdout", "stderr"} {
			if t := normalize(streams[name]); t != "" {
				outs = append(outs, name+": "+t)
			}
		}
		outs = append(outs, displays...)
		co.order = append(co.order, c.ID)
		co.out[c.ID] = outs
	}
	return co, nil
}

func sortedMimes(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// HasOutputs reports whether a notebook's code cells carry any output.
func HasOutputs(data []byte) (bool, error) {
	co, err := readOutputs(data)
	if err != nil {
		return false, err
	}
	for _, o := range co.out {
		if len(o) > 0 {
			return true, nil
		}
	}
	return false, nil
}

// Compare returns, per code cell whose committed outputs differ from the
// executed ones, a line naming the cell and the first difference.
func Compare(committed, executed []byte) ([]string, error) {
	a, err := readOutputs(committed)
	if err != nil {
		return nil, fmt.Errorf("committed: %v", err)
	}
	b, err := readOutputs(executed)
	if err != nil {
		return nil, fmt.Errorf("executed: %v", err)
	}
	if strings.Join(a.order, " ") != strings.Join(b.order, " ") {
		return nil, errors.New("the notebooks have different code cells")
	}
	var diffs []string
	for _, id := range a.order {
		if d := firstDiff(strings.Join(a.out[id], "\n"), strings.Join(b.out[id], "\n")); d != "" {
			diffs = append(diffs, fmt.Sprintf("cell %s: committed output differs from a fresh execution: %s", id, d))
		}
	}
	return diffs, nil
}

// firstDiff describes where x and y first differ, "" if they are equal.
func firstDiff(x, y string) string {
	if x == y {
		return ""
	}
	i := 0
	for i < len(x) && i < len(y) && x[i] == y[i] {
		i++
	}
	clip := func(s string) string {
		s = s[i:]
		if len(s) > 60 {
			s = s[:60] + "…"
		}
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("at byte %d: committed %s, now %s", i, clip(x), clip(y))
}
