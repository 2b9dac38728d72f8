package membound_test

import (
	"fmt"

	"github.com/gasplab/gasp/pkg/membound"
)

// A size a user chose is checked against the machine's memory before
// anything is allocated.
func Example() {
	const gib = 1 << 30
	fmt.Println(membound.CheckAgainst("--runs 10", 2*gib, 24*gib))
	fmt.Println(membound.CheckAgainst("--runs 1000000", 200*gib, 24*gib) != nil)
	fmt.Println(membound.Bytes(3.5 * gib))
	// Output:
	// <nil>
	// true
	// 3.5 GiB
}
