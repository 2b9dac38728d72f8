package jsonschema

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gasplab/gasp/pkg/earley"
)

// TestLeapSecondOffsets checks format "time" on leap seconds against RFC
// 3339's arithmetic: HH:MM:60 with offset ±hh:mm is valid exactly when
// HH:MM minus the offset is 23:59 UTC. Every local time is tried with its
// two right offsets, and with a random wrong one of each sign.
func TestLeapSecondOffsets(t *testing.T) {
	g, err := Compile("time", []byte(`{"type":"string","format":"time"}`))
	if err != nil {
		t.Fatal(err)
	}
	m := earley.New(g)
	accepts := func(s string) bool {
		p := m.NewParser()
		return p.FeedBytes([]byte(`"`+s+`"`)) && p.Complete()
	}
	utc := func(local, sign, off int) int { return ((local-sign*off)%1440 + 1440) % 1440 }
	r := rand.New(rand.NewPCG(3339, 1))
	fracs := []string{"", ".5", ".000"}
	for local := 0; local < 1440; local++ {
		for _, sign := range []int{1, -1} {
			right := ((local-23*60-59)*sign%1440 + 1440) % 1440
			wrong := r.IntN(1440)
			for utc(local, sign, wrong) == 23*60+59 {
				wrong = r.IntN(1440)
			}
			for _, off := range []int{right, wrong} {
				s := fmt.Sprintf("%02d:%02d:60%s%c%02d:%02d", local/60, local%60, fracs[r.IntN(len(fracs))],
					"+-"[(1-sign)/2], off/60, off%60)
				if want := utc(local, sign, off) == 23*60+59; accepts(s) != want {
					t.Errorf("%s: accepted %v, want %v", s, !want, want)
				}
			}
		}
	}
	for _, s := range []string{"23:59:60Z", "23:59:60.25z", "12:00:00+01:00", "23:59:60+00:00", "23:59:60-00:00", "00:59:60+01:00"} {
		if !accepts(s) {
			t.Errorf("%s: not accepted", s)
		}
	}
	for _, s := range []string{"22:59:60Z", "23:59:60", "23:59:60+00:01", "24:59:60+01:00", "01:59:60+01:00"} {
		if accepts(s) {
			t.Errorf("%s: accepted", s)
		}
	}
}
