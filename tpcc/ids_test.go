package tpcc

import "testing"

// TestRemoteWarehouseZeroBased: remote warehouses (clauses 2.4.1.5.2,
// 2.5.1.2) are drawn uniformly from w_id 0..W-1 minus home, workload's
// 0-based ids: every other warehouse is drawn, home and W never.
func TestRemoteWarehouseZeroBased(t *testing.T) {
	const W = 4
	g := Inputs{Rand: NewRand(3, 1), Warehouses: W}
	for home := int32(0); home < W; home++ {
		seen := map[int32]int{}
		for range 3000 {
			seen[g.OtherWarehouse(home)]++
		}
		for x, n := range seen {
			if x < 0 || x >= W || x == home {
				t.Errorf("home %d: drew warehouse %d (%d times), want 0..%d minus home", home, x, n, W-1)
			}
		}
		for x := int32(0); x < W; x++ {
			// 1,000 expected per other warehouse; 800 is > 7 sigma below.
			if x != home && seen[x] < 800 {
				t.Errorf("home %d: warehouse %d drawn %d times of 3000, want about 1000", home, x, seen[x])
			}
		}
	}
}
