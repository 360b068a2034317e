package tpcc

import "math/bits"

// The workload profile's NURand constants are CockroachDB workload's
// (v20.1: pkg/workload/tpcc/random.go, docs/fidelity/v20.1.md), which
// differ from clause 2.1.6 in three ways, reproduced here on purpose:
//
//   - they come from the generator's --seed (default 1), so a run's C for
//     C_LAST is the load's C (C-Run = C-Load: clause 2.1.6.1's delta is
//     0, not within [65, 119]);
//   - C for C_ID is drawn in [0, 8191] and C for OL_I_ID in [0, 1023]
//     (the spec's ranges swapped);
//   - OL_I_ID's A is 8189 (workload draws random(0, 8189), not 8191).
//
// workload seeds golang.org/x/exp/rand's PCG source with --seed and
// draws C-Load (C_LAST), then C for OL_I_ID, then C for C_ID, each with
// Intn. xpcg reimplements that source's integer stream from its
// published algorithm (PCG XSL RR 128/64, O'Neill), so that benchrig knows
// the C-Load of a database workload generated, without the dependency.

// WorkloadConstants are CockroachDB workload's NURand constants for a
// generator seed: CLast is the C-Load its data was generated with and the
// C its runs use for C_LAST; CID and OLIID are its runs' C for C_ID and
// OL_I_ID.
func WorkloadConstants(seed uint64) Constants {
	r := newXPCG(seed)
	cLoad := r.intn(256)
	cItem := r.intn(1024)
	cCust := r.intn(8192)
	return Constants{CLast: cLoad, CID: cCust, OLIID: cItem}
}

// workloadItemA is workload's A for OL_I_ID: random(0, 8189).
const workloadItemA = 8189

// xpcg is a 128-bit linear congruential generator with an XSL RR output
// (x/exp/rand's PCGSource): state = state × mul + inc (mod 2^128),
// output = (hi XOR lo) rotated right by hi's top six bits. Seeding sets
// both halves of the state to the seed.
type xpcg struct{ hi, lo uint64 }

// The 128-bit multiplier and increment, as high and low 64-bit halves:
// 47026247687942121848144207491837523525 and
// 117397592171526113268558934119004209487.
const (
	xpcgMulHi = 2549297995355413924
	xpcgMulLo = 4865540595714422341
	xpcgIncHi = 6364136223846793005
	xpcgIncLo = 1442695040888963407
)

func newXPCG(seed uint64) *xpcg { return &xpcg{hi: seed, lo: seed} }

func (p *xpcg) uint64() uint64 {
	carry, lo := bits.Mul64(p.lo, xpcgMulLo)
	hi := carry + p.hi*xpcgMulLo + p.lo*xpcgMulHi
	lo, c := bits.Add64(lo, xpcgIncLo, 0)
	hi += xpcgIncHi + c
	p.hi, p.lo = hi, lo
	return bits.RotateLeft64(hi^lo, -int(hi>>58))
}

// intn is x/exp/rand's Intn: a power of two is masked; otherwise draws at
// or above the largest multiple of n are rejected and the rest taken
// modulo n.
func (p *xpcg) intn(n int) int {
	u := uint64(n)
	if u&(u-1) == 0 {
		return int(p.uint64() & (u - 1))
	}
	const maxU = ^uint64(0)
	v := p.uint64()
	if v > maxU-u {
		ceiling := maxU - maxU%u
		for v >= ceiling {
			v = p.uint64()
		}
	}
	return int(v % u)
}
