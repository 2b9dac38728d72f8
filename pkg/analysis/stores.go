package analysis

import (
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/gasplab/gasp/pkg/runs"
)

// LoadDirs reads every record of the run stores in dirs, opened read-only,
// as one Data: mcmc/quick, or several stores together (mcmc/quick and
// mcmc/quick-smc). A store without records is an error, and so is a store
// named twice, and one whose records were drawn with two settings
// (runs.Record.Settings).
func LoadDirs(dirs ...string) (*Data, error) {
	return LoadDirsWith(func(string) (runs.Options, error) { return runs.Options{}, nil }, dirs...)
}

// LoadDirsWith is LoadDirs with each store opened with the options opts
// gives (read-only in any case): its settings (experiment.StoreOptions),
// so that a record drawn with other settings than its store's
// experiment.json is refused, naming its file and line.
func LoadDirsWith(opts func(dir string) (runs.Options, error), dirs ...string) (*Data, error) {
	if err := distinctStores(dirs); err != nil {
		return nil, err
	}
	var all []runs.Record
	for _, dir := range dirs {
		opt, err := opts(dir)
		if err != nil {
			return nil, err
		}
		st, err := OpenStoreWith(dir, opt)
		if err != nil {
			return nil, err
		}
		n := len(all)
		err = st.Each(func(r runs.Record) error {
			all = append(all, r)
			return nil
		})
		st.Close()
		if err == nil && len(all) == n {
			err = fmt.Errorf("%s holds no records", dir)
		}
		if err != nil {
			return nil, err
		}
	}
	return Group(all), nil
}

// OpenStore opens the run store dir read-only for an analysis. A store a
// writer holds (runs.Busy: an experiment run, even between its appends, a
// demo or a merge) is an error: its analysis would report the records
// written so far as if they were the experiment's.
func OpenStore(dir string) (*runs.Store, error) { return OpenStoreWith(dir, runs.Options{}) }

// OpenStoreWith is OpenStore with options: its settings (see LoadDirsWith).
func OpenStoreWith(dir string, opt runs.Options) (*runs.Store, error) {
	opt.ReadOnly = true
	st, err := runs.OpenWith(dir, opt)
	if err != nil {
		return nil, err
	}
	busy, err := runs.Busy(dir)
	if err == nil && busy {
		err = fmt.Errorf("analysis: %s is being written by a running gasp (experiment run, demo or merge): "+
			"it holds only the records written so far; analyze it once that has finished", dir)
	}
	if err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// distinctStores fails when two of dirs name one directory, however
// spelt ("q", "./q/", a link to q): its records would count twice, and
// their bootstrap intervals would narrow.
func distinctStores(dirs []string) error {
	seen := make([]os.FileInfo, len(dirs))
	for i, dir := range dirs {
		fi, err := os.Stat(dir)
		if err != nil {
			continue // OpenReadOnly says why
		}
		for j := range i {
			if seen[j] != nil && os.SameFile(seen[j], fi) {
				return fmt.Errorf("analysis: %s and %s are one store, whose every record would count twice", dirs[j], dir)
			}
		}
		seen[i] = fi
	}
	return nil
}

// Subset returns the records of the tasks of SyGuS subset s ("SLIA" for
// "SLIA/lastname"), or of every task when s is "", as a Data of its own.
func (d *Data) Subset(s string) *Data {
	var recs []runs.Record
	for _, t := range d.Tasks() {
		if s == "" || strings.HasPrefix(t, s+"/") {
			recs = append(recs, d.TaskRecords(t)...)
		}
	}
	return Group(recs)
}

// Wilson returns the 95 % Wilson score interval of a proportion of k
// successes in n trials; [0, 1] when n is 0.
func Wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.959964
	p, nf := float64(k)/float64(n), float64(n)
	c := (p + z*z/(2*nf)) / (1 + z*z/nf)
	h := z / (1 + z*z/nf) * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	return max(0, c-h), min(1, c+h)
}

// LogImportance returns the log of the importance-sampling estimate of
// Z = P(L(G)) from GCD records, the mean over the records of
// 1[valid]·exp(log P − log P_GCD), and the number of valid records. It
// works in log space, as Z may lie far below the smallest float64; it is
// −Inf when no record is valid.
func LogImportance(recs []runs.Record) (logZ float64, valid int) {
	m := math.Inf(-1)
	for _, r := range recs {
		if r.Valid {
			m = max(m, r.LogP-r.LogPGCD)
			valid++
		}
	}
	if valid == 0 {
		return m, 0
	}
	sum := 0.0
	for _, r := range recs {
		if r.Valid {
			sum += math.Exp(r.LogP - r.LogPGCD - m)
		}
	}
	return m + math.Log(sum/float64(len(recs))), valid
}
