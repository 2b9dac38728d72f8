package runs

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// lockName is the lock file in an experiment directory.
const lockName = "LOCK"

// ext is the extension of record files: a series' open segment.
const ext = ".jsonl"

// sealedExt is the extension of a series' sealed segment: records that
// Compact moved out of the open segment, gzip-compressed JSONL.
const sealedExt = ext + ".gz"

// Options configure OpenWith.
type Options struct {
	// ReadOnly opens an existing experiment for reading: no lock is
	// taken, nothing is created or truncated, and Append fails.
	ReadOnly bool
	// SyncEvery is how many appended records may await an fsync. 0 and 1
	// sync after every record: an operating-system crash or power loss
	// then loses at most the record being appended. n > 1 syncs after
	// every n-th record (and on Sync and Close), losing at most n−1
	// acknowledged records to such a crash. A killed process never loses
	// an acknowledged record, whatever SyncEvery: Append returns only once
	// its line is in the kernel. A negative value never syncs.
	SyncEvery int
	// Warn, if not nil, is called once for each torn last line found
	// (Warnings lists them as well).
	Warn func(Warning)
	// Settings are the sampling settings of the store's records (an
	// experiment's, experiment.Config.RecordSettings), and SettingsFrom
	// where they come from, for messages (its experiment.json). Append
	// writes them into a record that carries none, and refuses a record
	// of other settings; reading refuses a record of other settings with
	// a *SettingsError that names its file and line. A record without
	// settings, written before records carried them, is read as it is.
	// Empty Settings check nothing against a given value, but the records
	// that carry settings must still agree with the first one read or
	// appended: a store holds one configuration.
	Settings, SettingsFrom string
}

// Key names one series of a store: the records of one method on one task.
type Key struct {
	Task, Method string
}

// series is the state of one (task, method) file.
type series struct {
	path    string // the open segment: what Append appends to
	sealed  string // the sealed segment; "" in a store of one file
	hasSeal bool   // the sealed segment exists
	loaded  bool
	good    int64 // length of the valid prefix
	f       *os.File
	done    map[Sample]bool
	seeds   map[int]uint64 // run → seed
	prompt  []int          // prompt_ids of the last record in the file
	broken  error          // a failed write that could not be undone
	pending bool           // appended since the last fsync
}

// Store is a run store: the records of one experiment, kept as JSONL files
// in one directory. Its methods are safe for concurrent use.
type Store struct {
	dir      string
	file     string // the one file of a store opened by OpenFile
	fileKey  *Key   // the (task, method) that file holds, once known
	opt      Options
	mu       sync.Mutex
	lockPath string
	lock     *os.File // nil when read-only
	writing  *os.File // holdWriting's lock of a writable directory store
	dataLock bool     // the lock of a single-file store (lockData)
	created  bool     // lockData created the file
	series   map[Key]*series
	warnings []Warning
	warned   map[Warning]bool
	unsynced int
	closed   bool
	settings *settingsRule
}

// Open opens the experiment directory dir for appending, creating it if
// needed, and locks it against other writers. Records are synced to disk
// one by one.
func Open(dir string) (*Store, error) { return OpenWith(dir, Options{}) }

// OpenReadOnly opens an existing experiment directory for reading.
func OpenReadOnly(dir string) (*Store, error) { return OpenWith(dir, Options{ReadOnly: true}) }

// OpenWith opens the experiment directory dir as opt says.
func OpenWith(dir string, opt Options) (*Store, error) {
	s := &Store{dir: dir, opt: opt, series: map[Key]*series{}, warned: map[Warning]bool{}, settings: newSettingsRule(opt)}
	if opt.ReadOnly {
		fi, err := os.Stat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("runs: experiment %s does not exist: %w", dir, fs.ErrNotExist)
		}
		if err != nil {
			return nil, fmt.Errorf("runs: %w", err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("runs: experiment %s is not a directory", dir)
		}
		return s, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	if err := s.takeLock(filepath.Join(dir, lockName), dir); err != nil {
		return nil, err
	}
	var err error
	if s.writing, err = holdWriting(dir); err != nil {
		unlock(s.lock, s.lockPath)
		return nil, err
	}
	return s, nil
}

func (s *Store) takeLock(lockPath, what string) error {
	f, err := lock(lockPath)
	if err == errLocked {
		e := &LockedError{Dir: what, PID: readPID(lockPath)}
		if filepath.Base(lockPath) != lockName {
			e.lock = filepath.Base(lockPath)
		}
		return e
	}
	if err != nil {
		return fmt.Errorf("runs: locking %s: %w", what, err)
	}
	s.lock, s.lockPath = f, lockPath
	return nil
}

// OpenFile opens a store kept in the single file path instead of an
// experiment directory, as "gasp sample --out F.jsonl" writes it: the file
// holds the records of one (task, method), fixed by the first record, and
// everything else (appends, torn last lines, resuming, reading) works as in
// a directory store. A writable store creates path's directory and locks
// the file itself (flock; elsewhere path+".lock"); a file it created and
// wrote nothing to is removed on Close. path must be a regular file if it
// exists: not a directory, a device (/dev/null) or a symbolic link.
func OpenFile(path string, opt Options) (*Store, error) {
	dir := filepath.Dir(path)
	s := &Store{dir: dir, file: path, opt: opt, series: map[Key]*series{}, warned: map[Warning]bool{}, settings: newSettingsRule(opt)}
	if opt.ReadOnly {
		fi, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("runs: %w", err)
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("runs: %s is not a regular file", path)
		}
		return s, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	f, lockPath, created, err := lockData(path)
	if err == errLocked {
		return nil, &LockedError{Dir: path, lock: filepath.Base(lockPath)}
	}
	if err != nil {
		return nil, fmt.Errorf("runs: locking %s: %w", path, err)
	}
	s.lock, s.lockPath, s.dataLock, s.created = f, lockPath, true, created
	return s, nil
}

// Dir returns the experiment directory.
func (s *Store) Dir() string { return s.dir }

// Path returns the file that Append appends the records of (task, method)
// to, the series' open segment: dir/<task>/<method>.jsonl, each name
// escaped to one path element. Records that Compact sealed are in
// Path(task, method)+".gz".
func (s *Store) Path(task, method string) string {
	if s.file != "" {
		return s.file
	}
	return filepath.Join(s.dir, escape(task), escape(method)+ext)
}

// Warnings returns the torn last lines found so far.
func (s *Store) Warnings() []Warning {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.warnings)
}

func (s *Store) warn(w *Warning) {
	if w == nil || s.warned[*w] {
		return
	}
	s.warned[*w] = true
	s.warnings = append(s.warnings, *w)
	if s.opt.Warn != nil {
		s.opt.Warn(*w)
	}
}

// get returns the loaded state of (task, method). Loading reads the file,
// indexes its samples and, in a writable store, cuts off a torn last line.
func (s *Store) get(task, method string) (*series, error) {
	if s.closed {
		return nil, errors.New("runs: store is closed")
	}
	k := Key{task, method}
	if s.file != "" {
		if s.fileKey != nil && *s.fileKey != k {
			return nil, fmt.Errorf("runs: %s holds the records of task %q, method %q, not of task %q, method %q",
				s.file, s.fileKey.Task, s.fileKey.Method, task, method)
		}
		s.fileKey = &k
	}
	sr := s.series[k]
	if sr == nil {
		sr = &series{path: s.Path(task, method)}
		if s.file == "" {
			sr.sealed = sr.path + ".gz"
		}
		s.series[k] = sr
	}
	if sr.loaded {
		return sr, nil
	}
	if s.file == "" {
		if err := checkSeries(sr.path, sr.sealed); err != nil {
			return nil, err
		}
	}
	done, seeds := map[Sample]bool{}, map[int]uint64{}
	res, err := scan(sr.path, sr.sealed, task, method, -1, s.settings, func(r Record) error {
		done[Sample{r.K, r.Run}] = true
		seeds[r.Run] = r.Seed
		return nil
	})
	if err != nil {
		if s.file != "" && s.series[k] == sr && !sr.loaded {
			delete(s.series, k)
			s.fileKey = nil
		}
		return nil, err
	}
	s.warn(res.torn)
	if res.torn != nil && !s.opt.ReadOnly {
		if err := truncate(sr.path, res.good); err != nil {
			return nil, fmt.Errorf("runs: dropping the torn line of %s: %w", sr.path, err)
		}
	}
	if res.leftover && !s.opt.ReadOnly {
		// What a compaction killed before its last step leaves: the
		// sealed segment holds these records already.
		if err := os.Remove(sr.path); err != nil {
			return nil, fmt.Errorf("runs: removing %s, which %s absorbed: %w", sr.path, sr.sealed, err)
		}
		syncDir(filepath.Dir(sr.path))
	}
	sr.loaded, sr.good, sr.done, sr.seeds, sr.prompt = true, res.good, done, seeds, res.prompt
	sr.hasSeal = res.sealed
	return sr, nil
}

func truncate(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if err == nil {
		err = f.Sync()
	}
	if err2 := f.Close(); err == nil {
		err = err2
	}
	return err
}

// Append writes r as one line at the end of its (task, method) file, with
// a single write, and syncs as Options.SyncEvery says. It sets r.Schema to
// Schema when 0. A record of schema ≥ 2 leaves out prompt_ids when they
// equal the previous record's in the file, so a series stores its prompt
// once. It refuses a sample (k, run) already stored, a run whose seed
// differs from the seed stored for it, and a record of other settings
// than the store's (Options.Settings; a record without any gets them):
// resuming with another configuration would mix two experiments.
func (s *Store) Append(r Record) error {
	if s.opt.ReadOnly {
		return ErrReadOnly
	}
	if r.Schema == 0 {
		r.Schema = Schema
	}
	if r.Settings == "" {
		r.Settings = s.opt.Settings
	}
	if err := r.check(); err != nil {
		return fmt.Errorf("runs: invalid record (task %q, method %q, k %d, run %d): %w", r.Task, r.Method, r.K, r.Run, err)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	sr, err := s.get(r.Task, r.Method)
	if err != nil {
		return err
	}
	if sr.broken != nil {
		return sr.broken
	}
	samePrompt := sr.good > 0 && r.Schema >= 2 && slices.Equal(r.PromptIDs, sr.prompt)
	line, err := r.encode(!samePrompt)
	if err != nil {
		return fmt.Errorf("runs: encoding record: %w", err)
	}
	line = append(line, '\n')
	id := Sample{r.K, r.Run}
	if sr.done[id] {
		return fmt.Errorf("%w: task %q, method %q, k %d, run %d", ErrExists, r.Task, r.Method, r.K, r.Run)
	}
	if seed, ok := sr.seeds[r.Run]; ok && seed != r.Seed {
		return fmt.Errorf("runs: run %d of task %q, method %q has seed %d in the store, not %d", r.Run, r.Task, r.Method, seed, r.Seed)
	}
	if err := s.settings.check(&r, sr.path, 0); err != nil {
		return err
	}
	if sr.f == nil {
		if err := s.create(sr); err != nil {
			return err
		}
	}
	if n, err := sr.f.Write(line); err != nil {
		// Undo a partial line so that the file stays a sequence of
		// records; if that fails too, refuse further appends.
		if n > 0 {
			if terr := sr.f.Truncate(sr.good); terr != nil {
				sr.broken = fmt.Errorf("runs: %s: write failed (%w) and its partial line could not be removed: %w", sr.path, err, terr)
			}
		}
		return fmt.Errorf("runs: %w", err)
	}
	sr.good += int64(len(line))
	sr.done[id] = true
	sr.seeds[r.Run] = r.Seed
	if !samePrompt {
		sr.prompt = slices.Clone(r.PromptIDs)
	}
	sr.pending = true
	s.unsynced++
	if n := s.opt.SyncEvery; n >= 0 && s.unsynced >= max(n, 1) {
		return s.sync()
	}
	return nil
}

// create opens sr's file for appending, creating it and its directory, and
// syncs the directories a new entry went into.
func (s *Store) create(sr *series) error {
	taskDir := filepath.Dir(sr.path)
	_, statErr := os.Stat(taskDir)
	if err := os.MkdirAll(taskDir, 0o755); err != nil {
		return fmt.Errorf("runs: %w", err)
	}
	_, existed := os.Stat(sr.path)
	f, err := os.OpenFile(sr.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("runs: %w", err)
	}
	sr.f = f
	if s.opt.SyncEvery >= 0 {
		if existed != nil {
			syncDir(taskDir)
		}
		if statErr != nil {
			syncDir(s.dir)
		}
	}
	return nil
}

// syncDir makes a directory's new entries durable; errors are ignored, as
// some systems cannot sync a directory.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// sync fsyncs every file with unsynced records.
func (s *Store) sync() error {
	var errs []error
	for _, sr := range s.series {
		if sr.pending && sr.f != nil {
			if err := sr.f.Sync(); err != nil {
				errs = append(errs, fmt.Errorf("runs: %w", err))
				continue
			}
			sr.pending = false
		}
	}
	s.unsynced = 0
	return errors.Join(errs...)
}

// Sync flushes every appended record to stable storage.
func (s *Store) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sync()
}

// Has reports whether the sample (k, run) of (task, method) is stored. A
// read-only store answers Has and Done from the file as it was when the
// series was first read; Records and Each always read the file anew.
func (s *Store) Has(task, method string, k, run int) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sr, err := s.get(task, method)
	if err != nil {
		return false, err
	}
	return sr.done[Sample{k, run}], nil
}

// Done returns the samples of (task, method) already stored: what a resumed
// run skips.
func (s *Store) Done(task, method string) (map[Sample]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sr, err := s.get(task, method)
	if err != nil {
		return nil, err
	}
	out := make(map[Sample]bool, len(sr.done))
	for id := range sr.done {
		out[id] = true
	}
	return out, nil
}

// Records returns the records of (task, method) in the order they were
// appended; none if the series does not exist.
func (s *Store) Records(task, method string) ([]Record, error) {
	var out []Record
	err := s.each(task, method, func(r Record) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

func (s *Store) each(task, method string, fn func(Record) error) error {
	s.mu.Lock()
	sr, err := s.get(task, method)
	// A writable store reads what it wrote; a read-only one reads what the
	// files hold now, which a writer may have extended since.
	limit, empty := int64(-1), false
	if err == nil && !s.opt.ReadOnly {
		limit, empty = sr.good, sr.good == 0 && !sr.hasSeal
	}
	s.mu.Unlock()
	if err != nil || empty {
		return err
	}
	res, err := scan(sr.path, sr.sealed, task, method, limit, s.settings, fn)
	s.mu.Lock()
	s.warn(res.torn)
	s.mu.Unlock()
	return err
}

// Keys returns the series in the store, sorted by task and method.
func (s *Store) Keys() ([]Key, error) {
	if s.file != "" {
		return s.fileKeys()
	}
	tasks, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	var keys []Key
	for _, t := range tasks {
		if t.Type()&fs.ModeSymlink != 0 {
			return nil, linkError(filepath.Join(s.dir, t.Name()))
		}
		if !t.IsDir() {
			continue
		}
		task, err := entryName(filepath.Join(s.dir, t.Name()), t.Name())
		if err != nil {
			return nil, err
		}
		files, err := os.ReadDir(filepath.Join(s.dir, t.Name()))
		if err != nil {
			return nil, fmt.Errorf("runs: %w", err)
		}
		for _, f := range files {
			name, ok := strings.CutSuffix(f.Name(), ext)
			if !ok {
				name, ok = strings.CutSuffix(f.Name(), sealedExt)
			}
			if !ok {
				continue
			}
			p := filepath.Join(s.dir, t.Name(), f.Name())
			if !f.Type().IsRegular() {
				return nil, fmt.Errorf("runs: %s is not a regular file", p)
			}
			method, err := entryName(p, name)
			if err != nil {
				return nil, err
			}
			keys = append(keys, Key{task, method})
		}
	}
	slices.SortFunc(keys, func(a, b Key) int {
		if c := strings.Compare(a.Task, b.Task); c != 0 {
			return c
		}
		return strings.Compare(a.Method, b.Method)
	})
	return slices.Compact(keys), nil // a series with both segments is one key
}

// checkSeries fails when the task directory or a segment file of a series
// of a directory store (path, its open segment, and sealed) is a symbolic
// link, or a segment exists and is not a regular file. A store follows no
// link, reading or writing: a writer would write through it outside the
// store, and a reader that skipped it would report a store without its
// records.
func checkSeries(path, sealed string) error {
	for _, p := range []string{filepath.Dir(path), path, sealed} {
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return fmt.Errorf("runs: %w", err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return linkError(p)
		case p != filepath.Dir(path) && !fi.Mode().IsRegular():
			return fmt.Errorf("runs: %s is not a regular file", p)
		}
	}
	return nil
}

// linkError is the error of a symbolic link inside a store.
func linkError(path string) error {
	return fmt.Errorf("runs: %s is a symbolic link; a run store follows none (replace it by what it points to)", path)
}

// Each calls fn for every record of the store, series by series in the
// order of Keys, records in the order they were appended. It stops at the
// first error, fn's included, and returns it. fn may call the Store's
// methods; records it appends meanwhile may or may not be visited.
func (s *Store) Each(fn func(Record) error) error {
	keys, err := s.Keys()
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := s.each(k.Task, k.Method, fn); err != nil {
			return err
		}
	}
	return nil
}

// Close syncs and closes the files and releases the lock.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	if s.opt.SyncEvery >= 0 {
		errs = append(errs, s.sync())
	}
	for _, sr := range s.series {
		if sr.f != nil {
			errs = append(errs, sr.f.Close())
		}
	}
	switch {
	case s.lock != nil && s.dataLock:
		errs = append(errs, unlockData(s.lock, s.lockPath, s.created))
	case s.lock != nil:
		errs = append(errs, unlock(s.lock, s.lockPath))
	}
	if s.writing != nil {
		errs = append(errs, s.writing.Close())
	}
	return errors.Join(errs...)
}

// fileKeys returns the (task, method) of a single-file store: that of its
// first record, none if it has no record.
func (s *Store) fileKeys() ([]Key, error) {
	s.mu.Lock()
	k := s.fileKey
	s.mu.Unlock()
	if k != nil {
		return []Key{*k}, nil
	}
	f, err := os.Open(s.file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if len(line) == 0 || err != nil && err != io.EOF {
		return nil, nil // empty, or a torn only line: no record
	}
	var r Record
	if _, err := decodeLine(line, &r); err != nil {
		if line[len(line)-1] != '\n' {
			return nil, nil // torn
		}
		return nil, &CorruptError{File: s.file, Line: 1, Err: err}
	}
	return []Key{{r.Task, r.Method}}, nil
}
