package main

import (
	"fmt"
	"io"
)

// runBench implements "gasp bench". Placeholder until "gasp bench masks"
// lands; it only prints its usage.
func runBench(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "usage: gasp bench masks ...")
	return 2
}
