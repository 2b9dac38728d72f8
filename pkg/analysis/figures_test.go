package analysis

import "testing"

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
