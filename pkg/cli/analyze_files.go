package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gasplab/gasp/pkg/analysis"
	"github.com/gasplab/gasp/pkg/runs"
)

// sampleFiles reports whether the arguments of "gasp analyze" are output
// files of "gasp sample --out" rather than an experiment's name: each is
// an existing regular file or ends in .jsonl.
func sampleFiles(pos []string) bool {
	for _, p := range pos {
		fi, err := os.Stat(p)
		if !(err == nil && fi.Mode().IsRegular() || strings.HasSuffix(p, ".jsonl")) {
			return false
		}
	}
	return len(pos) > 0
}

// defaultFilesOut is where the analysis of sample files goes without
// --out: beside the first file, named after it ("s.jsonl" → "s-analysis").
func defaultFilesOut(files []string) string {
	return strings.TrimSuffix(files[0], filepath.Ext(files[0])) + "-analysis"
}

// analyzeFiles analyzes output files of "gasp sample --out" together, as
// one run store holding their records: each file holds one task and
// method, and a (task, method, k, run) found in two files is an error, not
// counted twice.
func analyzeFiles(files []string, opt analysis.Options) (*analysis.Report, []runs.Warning, error) {
	var all []runs.Record
	var warnings []runs.Warning
	type key struct {
		task, method string
		k, run       int
	}
	from := map[key]string{} // a record's file
	for _, f := range files {
		st, err := runs.OpenFile(f, runs.Options{ReadOnly: true})
		if err != nil {
			return nil, nil, err
		}
		err = st.Each(func(r runs.Record) error {
			key := key{r.Task, r.Method, r.K, r.Run}
			if other, ok := from[key]; ok {
				return fmt.Errorf("%s: run %d of task %q, method %s, k = %d is in %s too: give each sample file once", f, r.Run, r.Task, r.Method, r.K, other)
			}
			from[key] = f
			all = append(all, r)
			return nil
		})
		warnings = append(warnings, st.Warnings()...)
		st.Close()
		if err != nil {
			return nil, nil, err
		}
	}
	if len(all) == 0 {
		return nil, nil, fmt.Errorf("%s: no records", strings.Join(files, ", "))
	}
	data := analysis.Group(all)
	if err := checkStoredGrid(nil, data, nil, opt.K); err != nil {
		return nil, nil, err
	}
	rep, err := analysis.AnalyzeBoth(data, opt)
	if err != nil {
		return nil, nil, err
	}
	return rep, warnings, nil
}
