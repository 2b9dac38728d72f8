package runs

import (
	"errors"
	"strings"
	"testing"
)

const (
	warm = "model=m temperature=1 top_p=1"
	cold = "model=m temperature=0.5 top_p=1"
)

// A store opened with its settings writes them into every record that has
// none, and refuses to append a record of other settings.
func TestSettingsAppend(t *testing.T) {
	dir := t.TempDir()
	st := mustOpen(t, dir, Options{Settings: warm, SettingsFrom: "experiment.json"})
	if err := st.Append(rec("t", "m", 0, 0)); err != nil {
		t.Fatal(err)
	}
	r := rec("t", "m", 0, 1)
	r.Settings = cold
	var se *SettingsError
	if err := st.Append(r); !errors.As(err, &se) || !strings.Contains(err.Error(), "temperature was 1, now 0.5") {
		t.Fatalf("appending a record of other settings: %v", err)
	}
	got, err := st.Records("t", "m")
	if err != nil || len(got) != 1 || got[0].Settings != warm {
		t.Fatalf("records %+v, %v; want one of settings %q", got, err, warm)
	}
}

// mixedStore is a store whose file of (t, m) holds a record of warm, then
// one of cold (what two writers of one store without a lock left), and
// whose file of (u, m) a record of cold.
func mixedStore(t *testing.T) (dir, tm, um string) {
	t.Helper()
	dir = t.TempDir()
	st := mustOpen(t, dir, Options{Settings: warm})
	if err := st.Append(rec("t", "m", 0, 0)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st = mustOpen(t, dir, Options{Settings: cold})
	if err := st.Append(rec("u", "m", 0, 0)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	r := rec("t", "m", 0, 1)
	r.Settings = cold
	line, err := r.encode(true)
	if err != nil {
		t.Fatal(err)
	}
	appendRaw(t, st.Path("t", "m"), string(line)+"\n")
	return dir, st.Path("t", "m"), st.Path("u", "m")
}

// Readers refuse a store of records of two settings, naming the file and
// line of the first record that differs from the store's settings, or,
// where none is given, from the first record read.
func TestSettingsMixedStoreRefused(t *testing.T) {
	dir, tm, um := mixedStore(t)
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{ReadOnly: true}, tm + ":2: a record of task \"t\", method \"m\" drawn with other settings than " + tm + ":1 (temperature was 1, now 0.5)"},
		{Options{ReadOnly: true, Settings: cold, SettingsFrom: "its experiment.json"}, tm + ":1: a record of task \"t\", method \"m\" drawn with other settings than its experiment.json (temperature was 0.5, now 1)"},
		{Options{ReadOnly: true, Settings: warm, SettingsFrom: "its experiment.json"}, tm + ":2: "},
		{Options{}, tm + ":2: "}, // a writer resuming the store
	} {
		st := mustOpen(t, dir, c.opt)
		err := st.Each(func(Record) error { return nil })
		var se *SettingsError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: Each: %v, want a *SettingsError saying %q", c.opt, err, c.want)
		}
		st.Close()
	}
	// Each file alone is of one configuration; the store of both is not.
	st := mustOpen(t, dir, Options{ReadOnly: true, Settings: warm, SettingsFrom: "its experiment.json"})
	if _, err := st.Records("u", "m"); err == nil || !strings.Contains(err.Error(), um+":1: ") {
		t.Errorf("records of u: %v, want refused at %s:1", err, um)
	}
	st.Close()
}

// Records written before records carried settings are read under any.
func TestSettingsOldRecords(t *testing.T) {
	dir, _ := oneRecordStore(t)
	st := mustOpen(t, dir, Options{Settings: warm})
	if err := st.Append(rec("t", "m", 0, 1)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st = mustOpen(t, dir, Options{ReadOnly: true, Settings: warm})
	got, err := st.Records("t", "m")
	if err != nil || len(got) != 2 || got[0].Settings != "" || got[1].Settings != warm {
		t.Fatalf("records %+v, %v; want an old one and one of %q", got, err, warm)
	}
}

func TestSettingsDiff(t *testing.T) {
	for _, c := range [][3]string{
		{warm, cold, "temperature was 1, now 0.5"},
		{"a=1", "a=1 b=2", "b was not recorded, now 2"},
		{"a=1 b=2", "a=1", "b was 2, now not recorded"},
	} {
		if got := SettingsDiff(c[0], c[1]); got != c[2] {
			t.Errorf("SettingsDiff(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}
