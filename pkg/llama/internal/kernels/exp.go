package kernels

// e^x = 2^n·e^r with n = round(x/ln 2) and |r| ≤ ln2/2 ≈ 0.347; e^r by its Taylor polynomial to degree 7,
// whose truncation error r^8/8! ≤ 5.5e-9 is below float32's rounding (6e-8). ln 2 is split in two parts
// so that n·ln2Hi is exact. Inputs are clamped to [expLo, expHi], where 2^n stays a normal float32:
// e^expLo ≈ 1.2e-38 stands for 0 (softmax and silu only add or divide by it).
const (
	log2e = 1.44269504088896341
	ln2Hi = 0.693359375
	ln2Lo = -2.12194440e-4
	expLo = -87.33
	expHi = 88.37
)

// expPoly is e^r for |r| ≤ ln2/2, by Horner's rule.
func expPoly(r float32) float32 {
	return 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720+r*(1.0/5040)))))))
}
