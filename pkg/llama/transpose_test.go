package llama

import (
	"runtime"
	"testing"
)

// TestTranspose checks the serial and the parallel path (matrices of at least 2^20 elements) on shapes
// whose rows do not split evenly into blocks or workers.
func TestTranspose(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	for _, sh := range [][2]int{{1, 1}, {3, 70}, {33, 31}, {1025, 1024}, {4099, 300}, {2048, 513}} {
		rows, cols := sh[0], sh[1]
		a := make([]int32, rows*cols)
		for i := range a {
			a[i] = int32(i)
		}
		got := transpose(a, rows, cols)
		for i := range rows {
			for j := range cols {
				if got[j*rows+i] != a[i*cols+j] {
					t.Fatalf("%dx%d: t[%d][%d] = %d, want %d", rows, cols, j, i, got[j*rows+i], a[i*cols+j])
				}
			}
		}
	}
}
