package modroot_test

import (
	"fmt"
	"log"

	"github.com/gasplab/gasp/pkg/modroot"
)

// The embedded model's directory, from wherever the program runs (set
// GASP_ROOT to a checkout for a binary run outside one).
func Example() {
	dir, err := modroot.Path("data/models/tiny")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(dir)
}
