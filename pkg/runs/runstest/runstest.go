// Package runstest reads run stores back in tests, as net/http/httptest
// serves handlers: helpers that fail the test on any error instead of
// returning it, so that a test compares what a run wrote in one line.
//
// Two runs of one configuration agree on every record but its timing;
// Lines drops the timing, so that their stores compare as slices:
//
//	func TestResume(t *testing.T) {
//		full, part := t.TempDir(), t.TempDir()
//		... // run the grid into full; into part with a crash and a resume
//		if got, want := runstest.Lines(t, part), runstest.Lines(t, full); !slices.Equal(got, want) {
//			t.Errorf("resumed store:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
//		}
//	}
package runstest

import (
	"testing"

	"github.com/gasplab/gasp/pkg/runs"
)

// Records returns the records of the run store in dir in Store.Each's
// order (file by file, line by line), failing tb if the store does not
// open or read.
func Records(tb testing.TB, dir string) []runs.Record {
	tb.Helper()
	st, err := runs.OpenReadOnly(dir)
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close()
	var out []runs.Record
	err = st.Each(func(r runs.Record) error {
		out = append(out, r)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// Lines returns the records of the run store in dir as JSON lines with
// elapsed_ms zeroed, in Records' order: what two runs of one
// configuration must agree on, whatever their timing.
func Lines(tb testing.TB, dir string) []string {
	tb.Helper()
	var out []string
	for _, r := range Records(tb, dir) {
		r.ElapsedMS = 0
		b, err := r.MarshalJSON()
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}
