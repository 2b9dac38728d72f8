package gcd

import (
	"testing"

	"github.com/gasplab/gasp/pkg/earley"
)

// TestSteadyStateAllocs checks that once a workload's masks are cached,
// stepping through it again (a mask, then the token, at every step; then a
// rollback to the start, as MCMC does when it regrows a suffix) allocates
// nothing.
func TestSteadyStateAllocs(t *testing.T) {
	v, trie := llama3Trie(t)
	for _, name := range workloads {
		w := loadWorkload(t, name)
		st := NewMasker(earley.New(w.g), v, trie).NewState()
		pass := func() {
			stepThrough(t, st, w.ids)
			st.Rollback(0)
		}
		pass() // fills the caches
		if a := testing.AllocsPerRun(5, pass); a != 0 {
			t.Errorf("%s: %.1f allocations per pass of %d steps, want 0", name, a, len(w.ids)+1)
		}
	}
}
