package experiment

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/gasplab/gasp/pkg/atomicfile"
	"github.com/gasplab/gasp/pkg/infile"
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
	settings, err := mergeSettings(dst, srcs)
	if err != nil {
		return sum, err
	}
	recs, err := readShards(srcs)
	if err != nil {
		return sum, err
	}
	out, err := runs.Open(dst)
	if err != nil {
		return sum, err
	}
	defer out.Close()
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
		st, err := runs.OpenReadOnly(src)
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

// sameRecord reports whether a and b are equal but for elapsed_ms.
func sameRecord(a, b runs.Record) bool {
	a.ElapsedMS, b.ElapsedMS = 0, 0
	ja, err1 := a.MarshalJSON()
	jb, err2 := b.MarshalJSON()
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

// mergeSettings checks that the shards (and dst, if it has one) record the same sampling settings and
// returns the experiment.json to write to dst (nil when no store has one).
func mergeSettings(dst string, srcs []string) ([]byte, error) {
	var first []byte
	var firstDir string
	var want Config
	for _, dir := range append(slices.Clone(srcs), dst) {
		b, err := infile.Read(filepath.Join(dir, settingsFile), MaxConfigBytes)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("experiment: merge: %w", err)
		}
		var c Config
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("experiment: merge: %s: %w", filepath.Join(dir, settingsFile), err)
		}
		if first == nil {
			first, firstDir, want = b, dir, c
			continue
		}
		if d := settingsDiff(&want, &c); d != "" {
			return nil, fmt.Errorf("experiment: merge: %s and %s record different sampling settings (%s)", firstDir, dir, d)
		}
	}
	return first, nil
}
