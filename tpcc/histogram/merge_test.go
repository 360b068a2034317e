package histogram

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// published100k is the merged output in the CockroachDB v19.2/20.1 100k
// warehouse page (seed 000): ops/sec(cum) and the five percentiles in ms.
var published100k = []struct {
	name string
	ops  float64
	ms   [5]float64 // p50 p90 p95 p99 pMax
}{
	{Delivery, 2082.1, [5]float64{151.0, 369.1, 453.0, 637.5, 5100.3}},
	{NewOrder, 20757.7, [5]float64{167.8, 402.7, 486.5, 671.1, 8321.5}},
	{OrderStatus, 2083.2, [5]float64{9.4, 62.9, 92.3, 159.4, 1073.7}},
	{Payment, 20829.5, [5]float64{100.7, 251.7, 318.8, 469.8, 7516.2}},
	{StockLevel, 2082.8, [5]float64{29.4, 100.7, 142.6, 234.9, 103079.2}},
}

// elapsed100k is chosen so that 74,729,783 New-Orders give the published
// 1,245,461.78 tpmC: 3600.1 s is what the page prints, and no whole count
// divides to .78 over exactly 3600.1 s.
const elapsed100k = 3600100024 * time.Microsecond

// construct100k builds per-tick histograms for `hosts` workload hosts that
// ran side by side, reproducing the 100k result. Ticks are 60 s long; the
// last is a 30.05 s partial tick written at shutdown, so that
// max(Now+Elapsed) − min(Now) is elapsed100k, the same quirk the real files have.
func construct100k(t *testing.T, hosts int) [][]Tick {
	t.Helper()
	t0 := time.Date(2019, 10, 1, 12, 0, 0, 0, time.FixedZone("", -7*3600))
	const full = 59
	last := (elapsed100k - full*time.Minute) / 2 // Now+Elapsed of the last tick
	type tickTime struct {
		now     time.Time
		elapsed time.Duration
	}
	var times []tickTime
	for k := 1; k <= full; k++ {
		times = append(times, tickTime{t0.Add(time.Duration(k) * time.Minute), time.Minute})
	}
	times = append(times, tickTime{t0.Add(60*time.Minute + last), last})

	files := make([][]Tick, hosts)
	for _, row := range published100k {
		total := int64(row.ops*elapsed100k.Seconds() + 0.5)
		if row.name == NewOrder {
			total = 74729783
		}
		// Bucket counts that put each percentile exactly at its
		// published value: rank(q) = int(q/100·N + 0.5), as HdrHistogram.
		rank := func(q float64) int64 { return int64(q/100*float64(total) + 0.5) }
		counts := []int64{rank(50), rank(90) - rank(50), rank(95) - rank(90), rank(99) - rank(95), total - rank(99)}
		for k, tt := range times {
			for h := range hosts {
				hist := NewHistogram()
				for i, ms := range row.ms {
					// Spread every bucket's count over ticks and hosts.
					share := counts[i] / int64(len(times)*hosts)
					if k == len(times)-1 && h == hosts-1 {
						share = counts[i] - share*int64(len(times)*hosts-1)
					}
					// Printed values are bucket tops rounded to 0.1 ms.
					v := min(time.Duration((ms-0.06)*float64(time.Millisecond)), MaxLatency)
					if err := hist.RecordValues(v.Nanoseconds(), share); err != nil {
						t.Fatal(err)
					}
				}
				files[h] = append(files[h], Tick{Name: row.name, Hist: Export(hist), Elapsed: tt.elapsed, Now: tt.now})
			}
		}
	}
	return files
}

func writeFiles(t *testing.T, files [][]Tick) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i, ticks := range files {
		var buf bytes.Buffer
		enc := NewEncoder(&buf)
		for _, tk := range ticks {
			if err := enc.Encode(tk); err != nil {
				t.Fatal(err)
			}
		}
		p := filepath.Join(dir, fmt.Sprintf("workload%d.histogram.ndjson", i+1))
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func mergeFiles(t *testing.T, warehouses int, paths []string) *Result {
	t.Helper()
	var results []*Result
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		ticks, err := Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		r, err := NewResult(warehouses, ticks)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
	m, err := MergeResults(results...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMerge100k reproduces the published 100k merge: the summary line is
// the page's byte for byte, and each row's numbers are the page's.
func TestMerge100k(t *testing.T) {
	m := mergeFiles(t, 100000, writeFiles(t, construct100k(t, 5)))
	var out bytes.Buffer
	if err := WriteMerge(&out, m); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if want := "Duration: 1h0m0, Warehouses: 100000, Efficiency: 98.81, tpmC: 1245461.78"; lines[0] != want {
		t.Errorf("summary line\n got %q\nwant %q", lines[0], want)
	}
	if lines[1] != MergeHeader {
		t.Errorf("header %q", lines[1])
	}
	for i, row := range published100k {
		f := strings.Fields(lines[2+i])
		want := []string{"3600.1s", fmt.Sprintf("%.1f", row.ops)}
		for _, ms := range row.ms {
			want = append(want, fmt.Sprintf("%.1f", ms))
		}
		want = append(want, row.name)
		if strings.Join(f, " ") != strings.Join(want, " ") {
			t.Errorf("row %s\n got %v\nwant %v", row.name, f, want)
		}
	}
	golden(t, "merge_100k.golden", out.Bytes())
	if err := m.Check(); err != nil {
		t.Errorf("published result fails the check: %v", err)
	}
}

// TestMergeTwoHostsEqualsOneFile: splitting the same operations over two
// hosts' files that ran side by side changes nothing in the arithmetic.
func TestMergeTwoHostsEqualsOneFile(t *testing.T) {
	one := mergeFiles(t, 100000, writeFiles(t, construct100k(t, 1)))
	two := mergeFiles(t, 100000, writeFiles(t, construct100k(t, 2)))
	var a, b bytes.Buffer
	if err := WriteMerge(&a, one); err != nil {
		t.Fatal(err)
	}
	if err := WriteMerge(&b, two); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("two-host merge differs from one file:\n%s\nvs\n%s", b.String(), a.String())
	}
	for _, name := range TPCCNames() {
		if one.Count(name) != two.Count(name) {
			t.Errorf("%s: %d vs %d", name, one.Count(name), two.Count(name))
		}
	}
	if one.Elapsed != elapsed100k || two.Elapsed != elapsed100k {
		t.Errorf("elapsed %v / %v, want %v", one.Elapsed, two.Elapsed, elapsed100k)
	}
}

func TestMergeElapsedIsLongestHost(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	hist := NewHistogram()
	_ = hist.RecordValues(int64(time.Millisecond), 100)
	tick := func(sec int) Tick {
		return Tick{Name: NewOrder, Hist: Export(hist), Elapsed: time.Second, Now: t0.Add(time.Duration(sec) * time.Second)}
	}
	a, _ := NewResult(2, []Tick{tick(1), tick(2), tick(3)}) // 3 s: [1, 4)
	b, _ := NewResult(2, []Tick{tick(2), tick(3)})          // 2 s: [2, 4)
	m, err := MergeResults(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Elapsed != 3*time.Second || m.Count(NewOrder) != 500 {
		t.Fatalf("elapsed %v count %d, want 3s and 500", m.Elapsed, m.Count(NewOrder))
	}
	if got, want := m.TpmC(), 500/(3.0/60); got != want {
		t.Errorf("tpmC %v, want %v", got, want)
	}
	if got, want := m.Efficiency(), 100*(500/(3.0/60))/(12.605*2); got != want {
		t.Errorf("efficiency %v, want %v", got, want)
	}
	c, _ := NewResult(3, nil)
	if _, err := MergeResults(a, c); err == nil {
		t.Error("merged results with different warehouse counts")
	}
}
