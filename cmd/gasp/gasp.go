// Command gasp is the command-line interface of gasp, a toolkit for
// grammar-aligned sampling from language models under context-free grammar
// constraints: "gasp help" lists its commands, and package pkg/cli holds
// them, for a program that adds methods of its own.
package main

import (
	"os"

	"github.com/gasplab/gasp/pkg/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Options{}))
}
