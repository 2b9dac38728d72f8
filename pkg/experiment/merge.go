package experiment

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/gasplab/gasp/pkg/atomicfile"
	"github.com/gasplab/gasp/pkg/runs"
)

// MergeSummary is what Merge did.
type MergeSummary struct {
	Stores   int // shard stores read
	Records  int // records appended to the destination
	Existing int // records the destination already held, equal to a shard's
}

// Merge copies the records of the shard stores srcs (each written by "gasp experiment run --shard i/n
// --store SRC" of one experiment) into the store dst, creating it if needed, so that dst holds what an
// unsharded run would have written, record for record (elapsed_ms aside, the one field that differs
// between runs): every (task, method) file in the grid's order, by run and then k.
//
// The shards must record the same sampling settings (experiment.json), and so must dst if it has any. A
// sample (task, method, k, run) found in more than one store, or already in dst, must be the same record
// there (elapsed_ms aside): it is then written once; a different one is an error naming both stores, and
// nothing of that (task, method) is written. Merging again after an interruption appends what is missing.
func Merge(dst string, srcs []string) (MergeSummary, error) {
	sum := MergeSummary{Stores: len(srcs)}
	if len(srcs) == 0 {
		return sum, errors.New("experiment: merge: no shard stores")
	}
	if err := checkStoreDirs(dst, srcs); err != nil {
		return sum, err
	}
	// The configurations are checked before anything is written, and again
	// under dst's lock, where another writer cannot change them.
	if _, _, err := mergeConfig(dst, srcs); err != nil {
		return sum, err
	}
	recs, err := readShards(srcs)
	if err != nil {
		return sum, err
	}
	want, _, err := mergeConfig(dst, srcs)
	if err != nil {
		return sum, err
	}
	var opt runs.Options
	if want != nil {
		opt = want.storeOptions()
	}
	out, err := runs.OpenWith(dst, opt)
	if err != nil {
		return sum, err
	}
	defer out.Close()
	_, settings, err := mergeConfig(dst, srcs)
	if err != nil {
		return sum, err
	}
	if settings != nil {
		if err := atomicfile.WriteFile(filepath.Join(dst, settingsFile), settings); err != nil {
			return sum, fmt.Errorf("experiment: merge: %w", err)
		}
	}
	keys := make([]runs.Key, 0, len(recs))
	for k := range recs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b runs.Key) int {
		return cmp.Or(cmp.Compare(a.Task, b.Task), cmp.Compare(a.Method, b.Method))
	})
	for _, key := range keys {
		n, existing, err := mergeSeries(out, key, recs[key])
		sum.Records += n
		sum.Existing += existing
		if err != nil {
			return sum, err
		}
	}
	return sum, out.Close()
}

// sourced is a record and the store it was read from.
type sourced struct {
	rec   runs.Record
	store string
}

// readShards reads every record of the stores, by (task, method).
func readShards(srcs []string) (map[runs.Key][]sourced, error) {
	recs := map[runs.Key][]sourced{}
	for _, src := range srcs {
		opt, err := StoreOptions(src)
		if err != nil {
			return nil, fmt.Errorf("experiment: merge: %w", err)
		}
		st, err := runs.OpenWith(src, opt)
		if err != nil {
			return nil, fmt.Errorf("experiment: merge: %w", err)
		}
		err = st.Each(func(r runs.Record) error {
			k := runs.Key{Task: r.Task, Method: r.Method}
			recs[k] = append(recs[k], sourced{r, src})
			return nil
		})
		st.Close()
		if err != nil {
			return nil, fmt.Errorf("experiment: merge: %s: %w", src, err)
		}
	}
	return recs, nil
}

// mergeSeries appends the records of one (task, method), sorted by run and k, that dst lacks. It returns
// how many it appended and how many dst already had.
func mergeSeries(dst *runs.Store, key runs.Key, recs []sourced) (appended, existing int, err error) {
	old, err := dst.Records(key.Task, key.Method)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, 0, err
	}
	have := map[runs.Sample]sourced{}
	for _, r := range old {
		have[runs.Sample{K: r.K, Run: r.Run}] = sourced{r, dst.Dir()}
	}
	slices.SortStableFunc(recs, func(a, b sourced) int {
		return cmp.Or(cmp.Compare(a.rec.Run, b.rec.Run), cmp.Compare(a.rec.K, b.rec.K))
	})
	var todo []runs.Record
	for _, r := range recs {
		s := runs.Sample{K: r.rec.K, Run: r.rec.Run}
		if prev, ok := have[s]; ok {
			if !sameRecord(prev.rec, r.rec) {
				return 0, 0, fmt.Errorf("experiment: merge: %s %s k=%d run=%d differs between %s and %s",
					key.Task, key.Method, s.K, s.Run, prev.store, r.store)
			}
			if prev.store == dst.Dir() {
				existing++
			}
			continue
		}
		have[s] = r
		todo = append(todo, r.rec)
	}
	for _, r := range todo {
		if err := dst.Append(r); err != nil {
			return appended, existing, err
		}
		appended++
	}
	return appended, existing, nil
}

// sameRecord reports whether a and b are equal but for elapsed_ms, and
// for the settings a record written before records carried them lacks
// (the stores' settings are checked where they are read).
func sameRecord(a, b runs.Record) bool {
	a.ElapsedMS, b.ElapsedMS = 0, 0
	if a.Settings == "" || b.Settings == "" {
		a.Settings, b.Settings = "", ""
	}
	ja, err1 := a.MarshalJSON()
	jb, err2 := b.MarshalJSON()
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

// mergeConfig checks that the shards record the same sampling settings and grid, and dst, if it records
// any, the same settings and a grid within theirs: the merged store's experiment.json may grow, never shrink
// (checkStore). It returns the shards' configuration and experiment.json (nil when none has one).
func mergeConfig(dst string, srcs []string) (*Config, []byte, error) {
	var want *Config
	for _, dir := range srcs {
		c, err := Stored(dir)
		if err != nil {
			return nil, nil, fmt.Errorf("experiment: merge: %w", err)
		}
		switch {
		case c == nil:
		case want == nil:
			want = c
		case settingsDiff(want, c) != "":
			return nil, nil, fmt.Errorf("experiment: merge: %s and %s record different sampling settings (%s)", want.File, c.File, settingsDiff(want, c))
		case gridDiff(want, c) != "":
			return nil, nil, fmt.Errorf("experiment: merge: %s and %s record different grids (%s)", want.File, c.File, gridDiff(want, c))
		}
	}
	old, err := Stored(dst)
	if err != nil {
		return nil, nil, fmt.Errorf("experiment: merge: %w", err)
	}
	switch {
	case want == nil:
		return nil, nil, nil
	case old == nil:
	case settingsDiff(old, want) != "":
		return nil, nil, fmt.Errorf("experiment: merge: %s and %s record different sampling settings (%s)", old.File, want.File, settingsDiff(old, want))
	case !old.within(want):
		return nil, nil, fmt.Errorf("experiment: merge: the grid of %s is not within that of %s: a store's grid may only grow, "+
			"so that its records stay in it", old.where(), want.where())
	}
	b, err := os.ReadFile(want.File)
	return want, b, err
}

// checkStoreDirs fails unless every shard is a directory, and dst one or nothing yet: a sample file
// ("gasp sample --out") is not a store.
func checkStoreDirs(dst string, srcs []string) error {
	notDir := func(what string, fi os.FileInfo) error {
		if fi.Mode().IsRegular() {
			return fmt.Errorf("experiment: merge: %s is a file, not a run store directory", what)
		}
		return fmt.Errorf("experiment: merge: %s is not a run store directory", what)
	}
	for _, src := range srcs {
		fi, err := os.Stat(src)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("experiment: merge: %s does not exist", src)
		case err != nil:
			return fmt.Errorf("experiment: merge: %w", err)
		case !fi.IsDir():
			return notDir(src, fi)
		}
	}
	if fi, err := os.Stat(dst); err == nil && !fi.IsDir() {
		return notDir("the merged store "+dst, fi)
	}
	return nil
}
