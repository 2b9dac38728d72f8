package runs

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// A schema-2 line has no eos: it reads as NoEOS (not recorded), not as
// token 0.
func TestSchema2ReadsNoEOS(t *testing.T) {
	line := `{"schema":2,"task":"t","method":"gcd","k":0,"run":0,"seed":1,"prompt_ids":[1],"ids":[5,6],"text":"ab","logp":-1,"logp_gcd":-0.5,"valid":true,"status":"complete","evals":3,"elapsed_ms":1}`
	var r Record
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	if r.EOS != NoEOS || r.Proposal != nil {
		t.Errorf("EOS = %d, Proposal = %v; want NoEOS, nil", r.EOS, r.Proposal)
	}
}

// EOS and the proposal survive a store round trip, -Inf included.
func TestEOSProposalRoundTrip(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Record{
		{Task: "t", Method: "mcmc-uniform", K: 1, Run: 0, Seed: 9, PromptIDs: []int{1}, IDs: []int{5}, EOS: 128009,
			LogP: -2, LogPGCD: -1, Valid: true, Status: StatusComplete, Accepted: []bool{false},
			Proposal: &Proposal{IDs: []int{5, 6}, EOS: NoEOS, LogP: math.Inf(-1), LogPGCD: -3, Status: StatusCapped}},
		{Task: "t", Method: "mcmc-uniform", K: 2, Run: 0, Seed: 9, PromptIDs: []int{1}, IDs: []int{7}, EOS: 128001,
			LogP: -4, LogPGCD: -1, Valid: true, Status: StatusComplete, Accepted: []bool{false, true},
			Proposal: &Proposal{IDs: []int{7}, EOS: 128001, LogP: -4, LogPGCD: -1, Valid: true, Status: StatusComplete, Accepted: true}},
	}
	for _, r := range want {
		if err := st.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	got, err := ro.Records("t", "mcmc-uniform")
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i].Schema = Schema
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestBadEOSRefused(t *testing.T) {
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	err = st.Append(Record{Task: "t", Method: "gcd", EOS: -2, Status: StatusComplete})
	if err == nil || !strings.Contains(err.Error(), "eos") {
		t.Errorf("Append with eos -2: %v", err)
	}
}
