package analysis

import (
	"image/color"
	"math"
	"strings"
	"testing"
)

func TestTaskFigure(t *testing.T) {
	for task, want := range map[string]string{
		"SLIA/lastname":                 "fig15-slia_kl/lastname.svg",
		"BV4/find_inv_eq_bvand_4bit":    "fig16-bv4_kl/find_inv_eq_bvand_4bit.svg",
		"CP/CP_re_ptb_460":              "fig17-cp_kl/CP_re_ptb_460.svg",
		"sql":                           "fig3a-kl-div-sql.svg",
		"xml":                           "fig6a-xml-div-sql.svg",
		"toy/skew":                      "kl/toy_skew.svg",
		"SLIAX/a":                       "kl/SLIAX_a.svg",
		"testdata/demo-task with space": "kl/testdata_demo-task_with_space.svg",
	} {
		if got := TaskFigure(task); got != want {
			t.Errorf("TaskFigure(%q) = %q, want %q", task, got, want)
		}
	}
}

func TestMethodName(t *testing.T) {
	for m, want := range map[string]string{
		"gcd": "GCD", "asap": "ASAp", "mcmc-priority": "MCMC-Priority", "mcmc-restart": "MCMC-Restart",
		"mcmc-uniform": "MCMC-Uniform", "mcmc-priority-pp": "MCMC-Priority-PP", "other": "other",
	} {
		if got := methodName(m); got != want {
			t.Errorf("methodName(%q) = %q, want %q", m, got, want)
		}
	}
}

// A KL or bound a figure cannot show is an error naming the method and
// k, in a band (k ≥ 1) or a level (k = 0 only); a k = 0 point beside a
// band is not drawn, and not checked (issue 33 F40).
func TestKLPlotNotFinite(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		s    Series
		want string
	}{
		{Series{"mcmc-uniform", []Point{{K: 1, KL: 1, Lo: nan, Hi: 2}, {K: 2, KL: 1, Lo: 0.5, Hi: 2}}}, "method mcmc-uniform, k 1: KL 1 [NaN, 2] is not a finite number"},
		{Series{"asap", []Point{{K: 1, KL: 1, Lo: 0.5, Hi: 2}, {K: 3, KL: inf, Lo: 0.5, Hi: inf}}}, "method asap, k 3: KL +Inf [0.5, +Inf] is not a finite number"},
		{Series{"gcd", []Point{{K: 0, KL: nan, Lo: nan, Hi: nan}}}, "method gcd, k 0: KL NaN [NaN, NaN] is not a finite number"},
		{Series{"mix", []Point{{K: 0, KL: nan}, {K: 1, KL: 1, Lo: 0.5, Hi: 2}}}, ""},
	} {
		series := []Series{c.s, {"mcmc-priority", []Point{{K: 1, KL: 1, Lo: 0.5, Hi: 2}}}}
		_, err := klPlot("t", series, map[string]color.RGBA{})
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)) {
			t.Errorf("%v: err = %v, want %q", c.s, err, c.want)
		}
	}
}

// TestPaperRatio: the paper's geomeans stand beside a store's only where its
// tasks are of the paper's §4.1 families; its fuzzing tasks have none.
func TestPaperRatio(t *testing.T) {
	for _, c := range []struct {
		tasks []string
		ok    bool
	}{
		{[]string{"SLIA/lastname", "BV4/find_inv_eq_bvand_4bit", "CP/CP_re_ptb_460"}, true},
		{[]string{"SLIA/lastname", "xml/generate_xml"}, false},
		{[]string{"sql/generate_sql"}, false},
		{nil, false},
	} {
		r := &Report{}
		for _, task := range c.tasks {
			r.Tasks = append(r.Tasks, TaskResult{Task: task})
		}
		if p, ok := r.PaperRatio("mcmc-priority"); ok != c.ok || ok && p != PaperRatios()["mcmc-priority"] {
			t.Errorf("%v: %v %v, want %v", c.tasks, p, ok, c.ok)
		}
		if _, ok := r.PaperRatio("gcd"); ok {
			t.Errorf("%v: a ratio for gcd", c.tasks)
		}
	}
}
