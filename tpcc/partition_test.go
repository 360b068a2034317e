package tpcc

import (
	"testing"
)

func TestPartitions(t *testing.T) {
	for _, tc := range []struct {
		w, a, p int
		ranges  [][2]int
		active  [][2]int
	}{
		// cockroach.md §2's example: bounds [0,6,13,20], active
		// [[0,1,2],[6,7,8],[13..16]].
		{20, 10, 3, [][2]int{{0, 5}, {6, 12}, {13, 19}}, [][2]int{{0, 2}, {6, 8}, {13, 16}}},
		{10, 10, 1, [][2]int{{0, 9}}, [][2]int{{0, 9}}},
		{10, 10, 10, [][2]int{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 6}, {7, 7}, {8, 8}, {9, 9}}, nil},
		{5, 2, 5, nil, [][2]int{{0, -1}, {1, 0}, {2, 2}, {3, 2}, {4, 4}}}, // sizes 0,0,1,0,1
	} {
		p, err := NewPartitions(tc.w, tc.a, tc.p)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range tc.ranges {
			if lo, hi := p.Range(i); lo != want[0] || hi != want[1] {
				t.Errorf("W=%d P=%d: Range(%d) = %d..%d, want %d..%d", tc.w, tc.p, i, lo, hi, want[0], want[1])
			}
		}
		for i, want := range tc.active {
			if lo, hi := p.ActiveRange(i); lo != want[0] || hi != want[1] {
				t.Errorf("W=%d A=%d P=%d: ActiveRange(%d) = %d..%d, want %d..%d", tc.w, tc.a, tc.p, i, lo, hi, want[0], want[1])
			}
		}
		// Of is the inverse of Range, and the ranges tile 0..W-1.
		next := 0
		total := 0
		for i := 0; i < p.Count; i++ {
			lo, hi := p.Range(i)
			if lo != next {
				t.Errorf("W=%d P=%d: partition %d starts at %d, want %d", tc.w, tc.p, i, lo, next)
			}
			next = hi + 1
			for w := lo; w <= hi; w++ {
				if got := p.Of(w); got != i {
					t.Errorf("Of(%d) = %d, want %d", w, got, i)
				}
			}
			alo, ahi := p.ActiveRange(i)
			if ahi >= alo {
				total += ahi - alo + 1
				if alo < lo || ahi > hi {
					t.Errorf("active %d..%d outside partition %d..%d", alo, ahi, lo, hi)
				}
			}
		}
		if next != tc.w || total != tc.a {
			t.Errorf("W=%d A=%d P=%d: ranges end at %d, %d active; want %d, %d", tc.w, tc.a, tc.p, next-1, total, tc.w, tc.a)
		}
		if p.Of(-1) != -1 || p.Of(tc.w) != -1 {
			t.Errorf("Of outside 0..W-1 must be -1")
		}
	}
}

func TestPartitionsInvalid(t *testing.T) {
	for _, tc := range []struct{ w, a, p int }{
		{0, 0, 1}, {10, 10, 0}, {10, 10, 11}, {10, 11, 2}, {10, 0, 2},
	} {
		if _, err := NewPartitions(tc.w, tc.a, tc.p); err == nil {
			t.Errorf("NewPartitions(%d, %d, %d) succeeded", tc.w, tc.a, tc.p)
		}
	}
}

func TestParse(t *testing.T) {
	for _, s := range []string{"postgres", "cockroach"} {
		d, err := ParseDialect(s)
		if err != nil || d.String() != s {
			t.Errorf("ParseDialect(%q) = %v, %v", s, d, err)
		}
	}
	if _, err := ParseDialect("mysql"); err == nil {
		t.Error("ParseDialect(mysql) succeeded")
	}
	for _, s := range []string{"replication", "leases"} {
		st, err := ParsePartitionStrategy(s)
		if err != nil || st.String() != s {
			t.Errorf("ParsePartitionStrategy(%q) = %v, %v", s, st, err)
		}
	}
	if _, err := ParsePartitionStrategy("random"); err == nil {
		t.Error("ParsePartitionStrategy(random) succeeded")
	}
}
