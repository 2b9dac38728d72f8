package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"regexp"
	"sort"
	"strings"
)

// A Problem is one failure found in an executed notebook.
type Problem struct {
	Cell int    // code cell number, from 1 (the order of the notebook's code cells)
	Line string // the offending output line, or the error's name and value
}

func (p Problem) String() string { return fmt.Sprintf("cell %d: %s", p.Cell, p.Line) }

// failRe matches the output lines of a failed program: a Go panic or fatal
// runtime error, the "exit status N" and "signal: ..." lines that GoNB
// prints when a cell's program ends badly, go test's failure lines, and an
// "error: ..." line, which notebook.Run prints for a failed cell and which a
// cell that reports its own error (and exits 0) prints too.
var failRe = regexp.MustCompile(`^(panic: |fatal error: |error: |exit status [1-9][0-9]*$|signal: |--- FAIL: |FAIL$|FAIL\t)`)

// tagRe matches an HTML tag, to read the text of HTML outputs.
var tagRe = regexp.MustCompile(`<[^>]*>`)

// notebook is the part of the nbformat 4 schema that Check reads.
type notebook struct {
	NBFormat *int `json:"nbformat"`
	Cells    []struct {
		CellType string `json:"cell_type"`
		Outputs  []struct {
			OutputType string                     `json:"output_type"`
			Text       multiline                  `json:"text"`  // stream
			Data       map[string]json.RawMessage `json:"data"`  // display_data, execute_result
			EName      string                     `json:"ename"` // error
			EValue     string                     `json:"evalue"`
		} `json:"outputs"`
	} `json:"cells"`
}

// multiline is an nbformat multi-line string: a string or a list of strings.
type multiline string

func (m *multiline) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*m = multiline(s)
		return nil
	}
	var ss []string
	if err := json.Unmarshal(b, &ss); err != nil {
		return errors.New("multi-line string: want a string or a list of strings")
	}
	*m = multiline(strings.Join(ss, ""))
	return nil
}

// Check returns the problems of an executed notebook (nbformat 4 JSON).
func Check(data []byte) ([]Problem, error) {
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		return nil, fmt.Errorf("not a notebook: %v", err)
	}
	if nb.NBFormat == nil || *nb.NBFormat != 4 {
		return nil, errors.New("not an nbformat 4 notebook")
	}
	var problems []Problem
	code := 0
	for _, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		code++
		scan := func(text string) {
			for _, l := range strings.Split(text, "\n") {
				l = strings.TrimRight(l, "\r")
				if failRe.MatchString(l) {
					problems = append(problems, Problem{code, l})
				}
			}
		}
		for _, o := range c.Outputs {
			switch o.OutputType {
			case "error":
				problems = append(problems, Problem{code, strings.TrimSpace("error output: " + o.EName + ": " + o.EValue)})
			case "stream":
				scan(string(o.Text))
			case "display_data", "execute_result", "update_display_data":
				mimes := make([]string, 0, len(o.Data))
				for m := range o.Data {
					mimes = append(mimes, m)
				}
				sort.Strings(mimes)
				for _, mime := range mimes {
					var text multiline
					if json.Unmarshal(o.Data[mime], &text) != nil {
						continue
					}
					switch {
					case mime == "text/plain" || mime == "text/markdown":
						scan(string(text))
					case mime == "text/html":
						// GoNB shows errors as HTML unless the kernel runs with
						// --raw_error; read the text of the markup.
						s := strings.NewReplacer("<br>", "\n", "<br/>", "\n", "<br />", "\n").Replace(string(text))
						scan(html.UnescapeString(tagRe.ReplaceAllString(s, "\n")))
					}
				}
			}
		}
	}
	return problems, nil
}
