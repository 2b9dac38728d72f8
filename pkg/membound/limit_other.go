//go:build !unix

package membound

// addressLimit returns 0: no address-space limit is known here.
func addressLimit() float64 { return 0 }
