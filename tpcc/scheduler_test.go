package tpcc

import (
	"slices"
	"testing"
	"time"
)

func TestSchedulerReleasesInDueOrder(t *testing.T) {
	epoch := time.Unix(1000, 0)
	dues := []int64{50, 10, 40, 30, 20, 60}
	terms := make([]terminal, len(dues))
	for i, d := range dues {
		terms[i].due = d * int64(time.Millisecond)
		terms[i].url = uint16(i % 2)
	}
	s := newScheduler(epoch, terms, 2)
	// Nothing is due before the first due time.
	if wait := s.release(epoch.Add(5 * time.Millisecond)); wait != 5*time.Millisecond {
		t.Fatalf("wait = %v, want 5ms until the first terminal", wait)
	}
	if wait := s.release(epoch.Add(45 * time.Millisecond)); wait != 5*time.Millisecond {
		t.Fatalf("after 45ms: wait = %v, want 5ms", wait)
	}
	// Pool 0 serves terminals 0, 2, 4 (dues 50, 40, 20); due by 45ms: 4 then 2.
	var got0, got1 []int32
	for range 2 {
		i, _ := s.take(0)
		got0 = append(got0, i)
	}
	for range 2 {
		i, _ := s.take(1)
		got1 = append(got1, i)
	}
	if !slices.Equal(got0, []int32{4, 2}) || !slices.Equal(got1, []int32{1, 3}) {
		t.Fatalf("released %v / %v, want [4 2] / [1 3] (due order per pool)", got0, got1)
	}
	// A terminal put back with an earlier due time wakes the dispatcher.
	terms[4].due = 1
	s.put(4)
	select {
	case <-s.wake:
	default:
		t.Error("put of the new earliest terminal did not wake the dispatcher")
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { s.run(stop); close(done) }()
	if i, ok := s.take(0); !ok || i != 4 {
		t.Fatalf("take = %d, %v; want terminal 4 released by the running dispatcher", i, ok)
	}
	close(stop)
	<-done
	if _, ok := s.take(1); ok {
		t.Error("take after stop handed out a terminal; executors must return")
	}
}

func TestPlanTerminals(t *testing.T) {
	parts, err := NewPartitions(20, 10, 3) // active: 0-2, 6-8, 13-16
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		affinity   []int
		urls       int
		warehouses []int32
		urlOf      map[int32]uint16 // warehouse -> pool
		v          bool
	}{
		{"all partitions, one URL", nil, 1, []int32{0, 1, 2, 6, 7, 8, 13, 14, 15, 16}, map[int32]uint16{0: 0, 16: 0}, false},
		{"one affinity, URLs spread by w_id", []int{1}, 2, []int32{6, 7, 8}, map[int32]uint16{6: 0, 7: 1, 8: 0}, false},
		// v25.1+: URL j serves affinity[j] (wrapping).
		{"v25.1, two affinities, URL j serves affinity[j%2]", []int{0, 2}, 4, []int32{0, 1, 2, 13, 14, 15, 16}, map[int32]uint16{0: 0, 1: 2, 13: 3, 14: 1}, true},
		// Up to v24.x: URL j serves partition j % P: p0 has URLs 0 and 3,
		// p2 has URL 2.
		{"v20.1, two affinities, URL j serves partition j%3", []int{0, 2}, 4, []int32{0, 1, 2, 13, 14, 15, 16}, map[int32]uint16{0: 0, 1: 3, 13: 2, 14: 2}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := planTerminals(parts, tc.affinity, tc.urls, tc.v)
			if err != nil {
				t.Fatal(err)
			}
			var ws []int32
			for i, h := range pl.homes {
				if h.D != int32(i%10)+1 {
					t.Fatalf("terminal %d of warehouse %d has district %d", i%10, h.W, h.D)
				}
				if i%10 == 0 {
					ws = append(ws, h.W)
				}
				if u, ok := tc.urlOf[h.W]; ok && pl.pool[i] != u {
					t.Errorf("warehouse %d on URL %d, want %d", h.W, pl.pool[i], u)
				}
			}
			if !slices.Equal(ws, tc.warehouses) {
				t.Errorf("warehouses %v, want %v", ws, tc.warehouses)
			}
		})
	}
	if _, err := planTerminals(parts, []int{3}, 1, false); err == nil {
		t.Error("affinity outside the partitions accepted")
	}
}

func TestNoWaitHomesSpreadOverWarehouses(t *testing.T) {
	for _, tc := range []struct{ workers, warehouses, wantW, wantPerW int }{
		{5, 5, 5, 1},    // --workers=W: every warehouse once
		{30, 10, 10, 3}, // three per warehouse, districts 1..3
		{4, 1, 1, 4},
		{25, 2, 2, 10}, // at most the 10 districts of a warehouse get distinct homes
	} {
		seen := map[int]map[int]bool{}
		for k := range tc.workers {
			idx := noWaitHome(k, tc.warehouses)
			w, d := idx/10, idx%10
			if seen[w] == nil {
				seen[w] = map[int]bool{}
			}
			seen[w][d] = true
		}
		if len(seen) != tc.wantW {
			t.Errorf("%d workers on %d warehouses use %d warehouses, want %d", tc.workers, tc.warehouses, len(seen), tc.wantW)
		}
		for w, ds := range seen {
			if len(ds) != tc.wantPerW {
				t.Errorf("%d workers on %d warehouses: warehouse %d has %d distinct homes, want %d", tc.workers, tc.warehouses, w, len(ds), tc.wantPerW)
			}
		}
	}
}
