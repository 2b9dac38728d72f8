package infile_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/infile"
)

// Every file gasp reads goes through Read: a regular file within a size
// limit, or an error that names the path.
func Example() {
	dir, err := os.MkdirTemp("", "infile")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "prompt.txt")
	if err := os.WriteFile(path, []byte("Write a phone number."), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	b, err := infile.Read(path, 1<<10)
	fmt.Printf("%q %v\n", b, err)
	_, err = infile.Read(path, 8)
	fmt.Println(err != nil)
	_, err = infile.Read(dir, 1<<10)
	fmt.Println(err != nil)
	// Output:
	// "Write a phone number." <nil>
	// true
	// true
}
