package runs

import (
	"fmt"
	"strings"
	"sync"
)

// settingsRule holds that a store's records carry one configuration's
// settings (Options.Settings).
type settingsRule struct {
	mu   sync.Mutex
	want string // the settings of the store's records; "" until known
	from string // where want comes from, for messages
}

func newSettingsRule(opt Options) *settingsRule {
	from := opt.SettingsFrom
	if from == "" {
		from = "the store's settings"
	}
	return &settingsRule{want: opt.Settings, from: from}
}

// check fails when r, at line of file (0: being appended), carries other
// settings than the store's; the first record that carries some sets
// them where Options gave none.
func (s *settingsRule) check(r *Record, file string, line int) error {
	if r.Settings == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.want == "":
		s.want, s.from = r.Settings, fmt.Sprintf("%s:%d", file, line)
		if line == 0 {
			s.from = fmt.Sprintf("the first record appended to %s", file)
		}
		return nil
	case r.Settings != s.want:
		return &SettingsError{File: file, Line: line, Task: r.Task, Method: r.Method, Run: r.Run,
			Diff: SettingsDiff(s.want, r.Settings), From: s.from}
	}
	return nil
}

// SettingsError reports a record of other sampling settings than its
// store's: the store would hold two distributions under one name.
type SettingsError struct {
	File         string // the record's file
	Line         int    // its 1-based line; 0 for a record being appended
	Task, Method string
	Run          int
	Diff         string // SettingsDiff of the store's and the record's
	From         string // where the store's settings come from
}

func (e *SettingsError) Error() string {
	where := fmt.Sprintf("%s:%d", e.File, e.Line)
	if e.Line == 0 {
		where = fmt.Sprintf("%s (appending run %d)", e.File, e.Run)
	}
	return fmt.Sprintf("runs: %s: a record of task %q, method %q drawn with other settings than %s (%s): "+
		"one store would hold two distributions; keep each configuration in a store of its own",
		where, e.Task, e.Method, e.From, e.Diff)
}

// SettingsDiff names the first setting in which two settings strings
// (space-separated key=value pairs) differ: "temperature was 1, now 0.5".
func SettingsDiff(old, now string) string {
	kv := func(s string) map[string]string {
		m := map[string]string{}
		for _, f := range strings.Fields(s) {
			k, v, _ := strings.Cut(f, "=")
			m[k] = v
		}
		return m
	}
	o, n := kv(old), kv(now)
	for _, f := range strings.Fields(now) {
		k, _, _ := strings.Cut(f, "=")
		if o[k] != n[k] {
			if o[k] == "" {
				return fmt.Sprintf("%s was not recorded, now %s", k, n[k])
			}
			return fmt.Sprintf("%s was %s, now %s", k, o[k], n[k])
		}
	}
	for _, f := range strings.Fields(old) {
		if k, v, _ := strings.Cut(f, "="); n[k] == "" {
			return fmt.Sprintf("%s was %s, now not recorded", k, v)
		}
	}
	return fmt.Sprintf("settings %q, now %q", old, now)
}
