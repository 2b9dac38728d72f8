package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Schema is the version of the record format this package writes. Records
// with a higher version are refused on read; see mcmc/README.md for the
// changes between versions. Version 2 lets a record in a store file omit
// prompt_ids when they equal those of the record before it in that file
// (the store writes the prompt once per run of equal prompts); version 1
// records always carry them. Version 3 adds eos, the end-of-sequence token
// that ended a complete completion (a sample is its ids and its EOS: a model
// may have several), and proposal, the MH proposal of the step that led to
// an MCMC record (written only when the experiment keeps proposals).
const Schema = 3

// NoEOS is Record.EOS of a completion that did not end with an
// end-of-sequence token, or of a complete one whose EOS was not recorded
// (schema ≤ 2).
const NoEOS = -1

// Status values a Record normally carries; they are sample.Status.String()
// of the completion the record describes.
const (
	StatusComplete = "complete" // ended with an end-of-sequence token
	StatusCapped   = "capped"   // reached the length cap without ending
	StatusDeadEnd  = "dead end" // no allowed token had positive probability
	StatusRejected = "rejected" // rejection sampling: left the grammar
)

// Record is one sample of one run: the line a Store writes. The JSON names
// are the schema's; mcmc/README.md documents every field and its unit.
//
// LogP and LogPGCD are natural logarithms and may be -Inf (probability
// zero), which JSON cannot hold: it is written as null and read back as
// -Inf. NaN and +Inf are refused.
type Record struct {
	Schema    int     `json:"schema"`             // format version; Append sets it to Schema when 0
	Task      string  `json:"task"`               // task name, e.g. "SLIA/name-combine-4"
	Method    string  `json:"method"`             // sampler and configuration, e.g. "gcd", "mcmc-priority"
	K         int     `json:"k"`                  // step index within the run (MCMC steps, ASAp sample number)
	Run       int     `json:"run"`                // independent run index, 0-based
	Seed      uint64  `json:"seed"`               // seed of the run's random source
	PromptIDs []int   `json:"prompt_ids"`         // prompt token ids; records read from one file may share this slice
	IDs       []int   `json:"ids"`                // completion token ids, end-of-sequence token excluded
	EOS       int     `json:"eos"`                // the end-of-sequence token id that ended a complete completion; NoEOS otherwise or when unknown
	Text      string  `json:"text"`               // completion text, decoded from IDs
	LogP      float64 `json:"logp"`               // log P(x), end-of-sequence token included; nats
	LogPGCD   float64 `json:"logp_gcd"`           // log P_GCD(x); nats
	Valid     bool    `json:"valid"`              // a complete sentence of the grammar within the cap
	Status    string  `json:"status"`             // how the completion ended (StatusComplete, ...)
	Accepted  []bool  `json:"accepted,omitempty"` // MCMC: acceptance of steps 1…K
	Evals     int64   `json:"evals"`              // LM token evaluations spent on this sample (see mcmc/README.md)
	// Rejections counts, for the exact rejection samplers (cars, ars,
	// rsft), the run's attempts rejected before this sample.
	Rejections int64   `json:"rejections,omitempty"`
	ElapsedMS  float64 `json:"elapsed_ms"` // wall-clock ms from the start of the run until this sample was final
	// Proposal is, for an MCMC record at k ≥ 1 of an experiment that keeps
	// proposals, the proposal y of step k (accepted or not); nil otherwise.
	Proposal *Proposal `json:"proposal,omitempty"`
	// Settings describe the sampling settings the record was drawn with
	// (those of an experiment, experiment.Config.RecordSettings, or of
	// "gasp sample"), so that records of two configurations cannot be told
	// apart no more: a store holds one (see Options.Settings). Empty in
	// records written before records carried them.
	Settings string `json:"settings,omitempty"`
}

// Proposal is the proposal y of one MH step: the completion, its
// log-probabilities (null for -Inf in JSON, as in a Record) and the
// outcome of the step.
type Proposal struct {
	IDs      []int   // completion token ids, end-of-sequence token excluded
	EOS      int     // as Record.EOS
	LogP     float64 // log P(y), EOS included; nats
	LogPGCD  float64 // log P_GCD(y); nats
	Valid    bool    // a complete sentence of the grammar within the cap
	Status   string  // how the completion ended
	Accepted bool    // whether the step accepted y
}

// proposalWire is Proposal as encoded.
type proposalWire struct {
	IDs      []int   `json:"ids"`
	EOS      int     `json:"eos"`
	LogP     logProb `json:"logp"`
	LogPGCD  logProb `json:"logp_gcd"`
	Valid    bool    `json:"valid"`
	Status   string  `json:"status"`
	Accepted bool    `json:"accepted"`
}

func (p Proposal) MarshalJSON() ([]byte, error) {
	w := proposalWire{IDs: p.IDs, EOS: p.EOS, LogP: logProb(p.LogP), LogPGCD: logProb(p.LogPGCD),
		Valid: p.Valid, Status: p.Status, Accepted: p.Accepted}
	if w.IDs == nil {
		w.IDs = []int{}
	}
	return json.Marshal(w)
}

func (p *Proposal) UnmarshalJSON(b []byte) error {
	nan := logProb(math.NaN())
	w := proposalWire{EOS: NoEOS, LogP: nan, LogPGCD: nan}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if math.IsNaN(float64(w.LogP)) || math.IsNaN(float64(w.LogPGCD)) {
		return errors.New("proposal: missing logp or logp_gcd")
	}
	*p = Proposal{IDs: w.IDs, EOS: w.EOS, LogP: float64(w.LogP), LogPGCD: float64(w.LogPGCD),
		Valid: w.Valid, Status: w.Status, Accepted: w.Accepted}
	return nil
}

// Sample identifies a record within a (task, method) series.
type Sample struct {
	K, Run int
}

// logProb is a log-probability as JSON: a number, or null for -Inf.
type logProb float64

func (l logProb) MarshalJSON() ([]byte, error) {
	f := float64(l)
	switch {
	case math.IsInf(f, -1):
		return []byte("null"), nil
	case math.IsNaN(f) || math.IsInf(f, 1):
		return nil, fmt.Errorf("log-probability %v", f)
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

func (l *logProb) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*l = logProb(math.Inf(-1))
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*l = logProb(f)
	return nil
}

// wire is Record as encoded: the same fields in the same order.
type wire struct {
	Schema     int       `json:"schema"`
	Task       string    `json:"task"`
	Method     string    `json:"method"`
	K          int       `json:"k"`
	Run        int       `json:"run"`
	Seed       uint64    `json:"seed"`
	PromptIDs  *[]int    `json:"prompt_ids,omitempty"` // nil: omitted, the previous record's (schema ≥ 2)
	IDs        []int     `json:"ids"`
	EOS        *int      `json:"eos,omitempty"` // written for complete records (schema ≥ 3); absent: NoEOS
	Text       string    `json:"text"`
	LogP       logProb   `json:"logp"`
	LogPGCD    logProb   `json:"logp_gcd"`
	Valid      bool      `json:"valid"`
	Status     string    `json:"status"`
	Accepted   []bool    `json:"accepted,omitempty"`
	Evals      int64     `json:"evals"`
	Rejections int64     `json:"rejections,omitempty"`
	ElapsedMS  float64   `json:"elapsed_ms"`
	Proposal   *Proposal `json:"proposal,omitempty"`
	Settings   string    `json:"settings,omitempty"`
}

// MarshalJSON encodes r with the schema's names; -Inf log-probabilities
// become null and nil id lists [].
func (r Record) MarshalJSON() ([]byte, error) { return r.encode(true) }

// encode is MarshalJSON, leaving prompt_ids out unless withPrompt.
func (r Record) encode(withPrompt bool) ([]byte, error) {
	w := wire{
		Schema: r.Schema, Task: r.Task, Method: r.Method, K: r.K, Run: r.Run, Seed: r.Seed,
		IDs: r.IDs, Text: r.Text,
		LogP: logProb(r.LogP), LogPGCD: logProb(r.LogPGCD),
		Valid: r.Valid, Status: r.Status, Accepted: r.Accepted, Evals: r.Evals, Rejections: r.Rejections, ElapsedMS: r.ElapsedMS,
		Proposal: r.Proposal,
		Settings: r.Settings,
	}
	eos := r.EOS
	w.EOS = &eos
	if withPrompt {
		p := r.PromptIDs
		if p == nil {
			p = []int{}
		}
		w.PromptIDs = &p
	}
	if w.IDs == nil {
		w.IDs = []int{}
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes a record, ignoring unknown fields. The
// log-probabilities must be present (null reads as -Inf). A record without
// prompt_ids gets nil PromptIDs (a store fills them in from the record
// before it).
func (r *Record) UnmarshalJSON(b []byte) error {
	_, err := r.decode(b)
	return err
}

// decode is UnmarshalJSON, also telling whether prompt_ids were present.
func (r *Record) decode(b []byte) (hasPrompt bool, err error) {
	nan := logProb(math.NaN())
	w := wire{LogP: nan, LogPGCD: nan}
	if err := json.Unmarshal(b, &w); err != nil {
		return false, err
	}
	if math.IsNaN(float64(w.LogP)) {
		return false, errors.New("missing logp")
	}
	if math.IsNaN(float64(w.LogPGCD)) {
		return false, errors.New("missing logp_gcd")
	}
	*r = Record{
		Schema: w.Schema, Task: w.Task, Method: w.Method, K: w.K, Run: w.Run, Seed: w.Seed,
		IDs: w.IDs, Text: w.Text,
		LogP: float64(w.LogP), LogPGCD: float64(w.LogPGCD),
		Valid: w.Valid, Status: w.Status, Accepted: w.Accepted, Evals: w.Evals, Rejections: w.Rejections, ElapsedMS: w.ElapsedMS,
		EOS: NoEOS, Proposal: w.Proposal, Settings: w.Settings,
	}
	if w.EOS != nil {
		r.EOS = *w.EOS
	}
	if w.PromptIDs != nil {
		r.PromptIDs = *w.PromptIDs
	}
	return w.PromptIDs != nil, nil
}

// check reports what makes r unfit to be stored.
func (r *Record) check() error {
	switch {
	case r.Task == "":
		return errors.New("empty task")
	case r.Method == "":
		return errors.New("empty method")
	case r.K < 0:
		return fmt.Errorf("k = %d < 0", r.K)
	case r.Run < 0:
		return fmt.Errorf("run = %d < 0", r.Run)
	case r.Schema < 1 || r.Schema > Schema:
		return fmt.Errorf("schema %d, want 1…%d", r.Schema, Schema)
	}
	if err := checkLogProbs(r.LogP, r.LogPGCD); err != nil {
		return err
	}
	if r.EOS < NoEOS {
		return fmt.Errorf("eos = %d", r.EOS)
	}
	if p := r.Proposal; p != nil {
		if err := checkLogProbs(p.LogP, p.LogPGCD); err != nil {
			return fmt.Errorf("proposal: %w", err)
		}
		if p.EOS < NoEOS {
			return fmt.Errorf("proposal: eos = %d", p.EOS)
		}
	}
	if math.IsNaN(r.ElapsedMS) || math.IsInf(r.ElapsedMS, 0) {
		return fmt.Errorf("elapsed_ms = %v", r.ElapsedMS)
	}
	if r.Rejections < 0 {
		return fmt.Errorf("rejections = %d < 0", r.Rejections)
	}
	return nil
}

// maxLogP is the largest log-probability a record may hold. A probability
// is at most 1; sums of log-softmax values may round a little above 0, as
// much as the authors' logs do (pkg/authors refuses above 1e-9 too). A
// larger value is a corrupt record, which would give any KL of it 1e308.
const maxLogP = 1e-9

// checkLogProbs checks a sample's log P and log P_GCD: neither NaN nor
// above maxLogP; -Inf is probability zero.
func checkLogProbs(logP, logPGCD float64) error {
	for _, v := range [...]struct {
		name string
		f    float64
	}{{"logp", logP}, {"logp_gcd", logPGCD}} {
		switch {
		case math.IsNaN(v.f):
			return fmt.Errorf("%s = %v", v.name, v.f)
		case v.f > maxLogP:
			return fmt.Errorf("%s = %v > 0: a probability above 1", v.name, v.f)
		}
	}
	return nil
}
