package experiment

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gasplab/gasp/pkg/runs"
)

// signal is a Progress writer that closes ready once a line holding what
// was written.
type signal struct {
	what  string
	ready chan struct{}
	once  sync.Once
}

func (s *signal) Write(p []byte) (int, error) {
	if strings.Contains(string(p), s.what) {
		s.once.Do(func() { close(s.ready) })
	}
	return len(p), nil
}

// TestSettingsCheckedUnderLock (F01): a run checks the store's settings
// under its lock. Another writer holds the lock while the run loads its
// model and records other settings meanwhile: the run, once it has the
// lock, must see them and refuse, leaving the other's experiment.json.
func TestSettingsCheckedUnderLock(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the embedded model")
	}
	dir := filepath.Join(t.TempDir(), "s")
	hold, err := runs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := toyConfig(t)
	sig := &signal{what: "loading model", ready: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), c, Options{Store: dir, LockWait: time.Minute, Progress: sig})
		done <- err
	}()
	select {
	case <-sig.ready:
	case err := <-done:
		t.Fatalf("run ended before loading its model: %v", err)
	}
	time.Sleep(200 * time.Millisecond) // the run is past its check without the lock
	other := *toyConfig(t)
	other.Temperature = 0.5
	b, _ := json.MarshalIndent(&other, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, settingsFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	hold.Close()
	err = <-done
	if err == nil || !strings.Contains(err.Error(), "other sampling settings (temperature was 0.5, now 1)") {
		t.Errorf("run over another writer's settings: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, settingsFile)); string(got) != string(b) {
		t.Errorf("experiment.json replaced:\n%s", got)
	}
	if lines := runsLines(t, dir); len(lines) != 0 {
		t.Errorf("the refused run appended %d records", len(lines))
	}
}

// TestConcurrentSettings (F01): two runs of other temperatures started
// together on a new store: exactly one succeeds, and every record of the
// store is of the settings of its experiment.json.
func TestConcurrentSettings(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the embedded model")
	}
	dir := filepath.Join(t.TempDir(), "s")
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range errs {
		c := toyConfig(t)
		c.Methods, c.Runs = []string{"gcd"}, 2
		c.Temperature = []float64{1, 0.9}[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Run(context.Background(), c, Options{Store: dir, LockWait: time.Minute})
		}()
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("two runs of other settings on one store: %v; %v", errs[0], errs[1])
	}
	won := 0
	if errs[0] != nil {
		won = 1
	}
	stored, err := Stored(dir)
	if err != nil || stored.Temperature != []float64{1, 0.9}[won] {
		t.Errorf("experiment.json: %+v, %v; the run at temperature %v succeeded", stored, err, []float64{1, 0.9}[won])
	}
}

// runsLines returns the record lines of the store dir.
func runsLines(t *testing.T, dir string) []string {
	t.Helper()
	st, err := runs.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var out []string
	err = st.Each(func(r runs.Record) error {
		out = append(out, r.Task+" "+r.Method)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGridGrows: a run may grow the store's grid (more runs, a larger k,
// another method), which experiment.json then records; never shrink it
// (F05), whichever part shrinks.
func TestGridGrows(t *testing.T) {
	_, dir, _ := runToy(t)
	grow := toyConfig(t)
	grow.Runs, grow.K = 4, 3
	var progress strings.Builder
	if _, err := Run(context.Background(), grow, Options{Store: dir, Progress: &progress}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(progress.String(), "grows (runs was 3, now 4, k was 2, now 3)") {
		t.Errorf("growing said:\n%s", progress.String())
	}
	if s, err := Stored(dir); err != nil || s.Runs != 4 || s.K != 3 {
		t.Errorf("experiment.json after growing: %+v, %v", s, err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, settingsFile))
	for _, shrink := range []func(*Config){
		func(c *Config) { c.Runs = 3 },
		func(c *Config) { c.K = 2 },
		func(c *Config) { c.Methods = c.Methods[1:] },
		func(c *Config) { c.Tasks = []string{"toy/b*"} },
	} {
		s := toyConfig(t)
		s.Runs, s.K = 4, 3
		shrink(s)
		_, err := Run(context.Background(), s, Options{Store: dir})
		if err == nil || !strings.Contains(err.Error(), "the grid of "+filepath.Join(dir, settingsFile)) || !strings.Contains(err.Error(), "may only grow") {
			t.Errorf("%+v: %v", s, err)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, settingsFile)); string(after) != string(before) {
		t.Errorf("a refused run changed experiment.json")
	}
}

// TestStored (F33, F34): a store's experiment.json is read as strictly as
// a configuration file, its errors located.
func TestStored(t *testing.T) {
	dir := t.TempDir()
	if c, err := Stored(dir); c != nil || err != nil {
		t.Errorf("no experiment.json: %v, %v", c, err)
	}
	good, _ := json.Marshal(toyConfig(t))
	for _, tt := range []struct{ text, want string }{
		{"{not json", "experiment.json:1:2: experiment config: invalid character"},
		{strings.Replace(string(good), `"runs":3`, `"runs":0`, 1), "experiment.json: experiment config: runs must be at least 1, got 0"},
		{strings.Replace(string(good), `"runs":3`, `"runs":3,"sede":1`, 1), `experiment.json: experiment config: json: unknown field "sede"`},
		{strings.Replace(string(good), `"runs":3`, `"runs":3,"runs":4`, 1), `experiment.json:1:`},
		{strings.Replace(string(good), `"runs":3`, `"runs":3,"RUNS":4`, 1), `experiment config: key "RUNS" given twice (as "runs" before`},
		{"", "experiment.json: experiment config: EOF"},
	} {
		if tt.text == string(good) {
			t.Fatalf("edit to %q did not apply", tt.want)
		}
		os.WriteFile(filepath.Join(dir, settingsFile), []byte(tt.text), 0o644)
		c, err := Stored(dir)
		if c != nil || err == nil || !strings.Contains(err.Error(), filepath.Join(dir, tt.want)) && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, %v; want %q", tt.text, c, err, tt.want)
		}
	}
}

// TestNegativeTaskTime (F44): Options.TaskTime below 0 is refused by Run,
// whichever command passes it.
func TestNegativeTaskTime(t *testing.T) {
	for _, d := range []time.Duration{-1, -time.Second} {
		_, err := Run(context.Background(), toyConfig(t), Options{Store: filepath.Join(t.TempDir(), "s"), TaskTime: d})
		if err == nil || err.Error() != "experiment: task time "+d.String()+" is negative" {
			t.Errorf("TaskTime %v: %v", d, err)
		}
	}
}
