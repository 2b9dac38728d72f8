package fuzz_test

import (
	"fmt"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/fuzz"
	"github.com/gasplab/gasp/pkg/grammar"
)

// The grammar baseline's seeds for each target: random derivations of the
// target's grammar, at its default depth, reproducible from the seed. Run
// (which needs the AFL++ toolchain of scripts/fuzz-setup.sh) then fuzzes
// from such a directory of seeds for a protocol's time and trials.
func Example() {
	for _, target := range fuzz.Targets() {
		rel, err := fuzz.GrammarFile(target)
		if err != nil {
			fmt.Println(err)
			return
		}
		g, _, err := grammar.CompileFile(filepath.Join("..", "..", rel), grammar.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		depth, err := fuzz.DefaultDepth(target)
		if err != nil {
			fmt.Println(err)
			return
		}
		seeds, err := fuzz.GrammarSeeds(g, 3, 1, depth)
		if err != nil {
			fmt.Println(err)
			return
		}
		again, _ := fuzz.GrammarSeeds(g, 3, 1, depth)
		fmt.Printf("%s: %s, depth %d, %d seeds, reproducible: %v\n", target, rel, depth, len(seeds), string(seeds[2]) == string(again[2]))
	}
	quick, _ := fuzz.LookupProtocol("quick")
	paper, _ := fuzz.LookupProtocol("paper")
	fmt.Printf("quick: %d × %v; paper: %d × %v\n", quick.Trials, quick.Time, paper.Trials, paper.Time)
	_, err := fuzz.LookupProtocol("slow")
	fmt.Println(err)
	// Output:
	// xml: grammar/xml.gbnf, depth 16, 3 seeds, reproducible: true
	// sql: grammar/sqlite-test.gbnf, depth 12, 3 seeds, reproducible: true
	// quick: 1 × 20s; paper: 5 × 1h0m0s
	// unknown fuzz protocol "slow" (want quick or paper)
}
