package tpcc

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

var testNow = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// generated reads up to limit rows (0: all) from a generator and splits
// them into fields.
func generated(t testing.TB, g rowGen, limit int) [][]string {
	t.Helper()
	var rows [][]string
	var b []byte
	for limit == 0 || len(rows) < limit {
		var ok bool
		if b, ok = g.next(b[:0]); !ok {
			break
		}
		if len(b) == 0 || b[len(b)-1] != '\n' {
			t.Fatalf("row without newline: %q", b)
		}
		if len(b) > maxRowBytes {
			t.Fatalf("row of %d bytes > maxRowBytes (%d): %q", len(b), maxRowBytes, b)
		}
		rows = append(rows, strings.Split(string(b[:len(b)-1]), "\t"))
	}
	return rows
}

func atoi(t testing.TB, s string) int {
	t.Helper()
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("not an integer: %q", s)
	}
	return v
}

// cents parses a NUMERIC(p,2) text value.
func cents(t testing.TB, s string) int {
	t.Helper()
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	i := strings.IndexByte(s, '.')
	if i < 0 || len(s)-i != 3 {
		t.Fatalf("not a 2-decimal number: %q", s)
	}
	v := atoi(t, s[:i])*100 + atoi(t, s[i+1:])
	if neg {
		v = -v
	}
	return v
}

// TestWarehousePopulation checks one generated warehouse against clause
// 4.3.3.1, table by table.
func TestWarehousePopulation(t *testing.T) {
	t.Parallel()
	const w = 3
	cLoad := 117
	jobs := warehouseJobs(1, w, cLoad, loadTimestamp(testNow))
	got := map[string][][]string{}
	// Stock's rules are per row and simple: a sample of 20,000 rows is
	// enough (its 100,000 rows are counted in the database tests), and
	// keeps this test quick under -race. The other tables are checked
	// whole, since their rules span rows (permutations, line counts).
	const stockSample = 20000
	for _, j := range jobs {
		limit := 0
		if j.table.Name == "stock" {
			limit = stockSample
		}
		rows := generated(t, j.gen, limit)
		for _, r := range rows {
			if len(r) != len(j.table.columnNames()) {
				t.Fatalf("%s row has %d fields, table has %d columns: %q", j.table.Name, len(r), len(j.table.columnNames()), r)
			}
		}
		got[j.table.Name] = rows
	}
	ts := loadTimestamp(testNow)
	wantCounts := map[string]int{"warehouse": 1, "district": 10, "customer": 30000, "history": 30000,
		`"order"`: 30000, "new_order": 9000, "stock": stockSample}
	for tb, n := range wantCounts {
		if len(got[tb]) != n {
			t.Errorf("%s: %d rows, want %d", tb, len(got[tb]), n)
		}
	}

	wh := got["warehouse"][0]
	if atoi(t, wh[0]) != w || wh[8] != "300000.00" || len(wh[6]) != 9 || !strings.HasSuffix(wh[6], "11111") {
		t.Errorf("warehouse row %q: want w_id %d, w_ytd 300000.00, zip ####11111", wh, w)
	}
	for _, d := range got["district"] {
		if d[9] != "30000.00" || d[10] != "3001" || atoi(t, d[1]) != w {
			t.Errorf("district row %q: want d_ytd 30000.00, d_next_o_id 3001", d)
		}
	}

	bc := 0
	lastNames := map[string]int{}
	for i, c := range got["customer"] {
		cid, did := atoi(t, c[0]), atoi(t, c[1])
		if cid != i%3000+1 || did != i/3000+1 {
			t.Fatalf("customer %d: c_id %d d_id %d out of order", i, cid, did)
		}
		if cid <= 1000 && c[5] != LastName(cid-1) {
			t.Errorf("customer %d/%d: c_last %q, want %q (clause 4.3.3.1: first 1000 in order)", did, cid, c[5], LastName(cid-1))
		}
		if cid > 1000 {
			lastNames[c[5]]++
		}
		if c[4] != "OE" || c[12] != string(ts) || c[14] != "50000.00" || c[16] != "-10.00" || c[17] != "10.00" || c[18] != "1" || c[19] != "0" {
			t.Fatalf("customer %d/%d fixed fields wrong: %q", did, cid, c)
		}
		if l := len(c[20]); l < 300 || l > 500 {
			t.Fatalf("c_data length %d", l)
		}
		if disc := atoi(t, strings.TrimPrefix(c[15], "0.")); disc > 5000 {
			t.Fatalf("c_discount %s > 0.5", c[15])
		}
		switch c[13] {
		case "BC":
			bc++
		case "GC":
		default:
			t.Fatalf("c_credit %q", c[13])
		}
	}
	if frac := float64(bc) / 30000; frac < 0.09 || frac > 0.11 {
		t.Errorf("BC credit in %.1f%% of customers, want 10%%", 100*frac)
	}
	// NURand(255,0,999) with C-Load: skewed over last names.
	maxc := 0
	for _, n := range lastNames {
		maxc = max(maxc, n)
	}
	if maxc < 3*20000/1000 {
		t.Errorf("most common NURand last name only %d of 20000: not NURand", maxc)
	}

	for _, h := range got["history"] {
		if h[6] != "10.00" || h[0] == "" || h[2] != h[4] || h[1] != h[3] {
			t.Fatalf("history row %q", h)
		}
	}

	// Orders: permuted o_c_id per district, carrier iff o_id < 2101.
	olCnt := map[[2]int]int{}
	sumOL := 0
	for i, o := range got[`"order"`] {
		oid, did := atoi(t, o[0]), atoi(t, o[1])
		if oid != i%3000+1 || did != i/3000+1 {
			t.Fatalf("order %d out of order: %q", i, o)
		}
		if (o[5] == copyNull) != (oid >= 2101) {
			t.Fatalf("order %d/%d: o_carrier_id %q (NULL iff o_id >= 2101)", did, oid, o[5])
		}
		if o[5] != copyNull {
			if c := atoi(t, o[5]); c < 1 || c > 10 {
				t.Fatalf("o_carrier_id %d", c)
			}
		}
		n := atoi(t, o[6])
		if n < 5 || n > 15 {
			t.Fatalf("o_ol_cnt %d", n)
		}
		olCnt[[2]int{did, oid}] = n
		sumOL += n
	}
	for d := 1; d <= 10; d++ {
		seen := map[string]bool{}
		for _, o := range got[`"order"`][(d-1)*3000 : d*3000] {
			seen[o[3]] = true
		}
		if len(seen) != 3000 {
			t.Errorf("district %d: o_c_id takes %d distinct values, want a permutation of 3000", d, len(seen))
		}
	}
	if len(got["order_line"]) != sumOL {
		t.Errorf("order_line: %d rows, sum(o_ol_cnt) = %d", len(got["order_line"]), sumOL)
	}
	lines := map[[2]int]int{}
	for _, l := range got["order_line"] {
		oid, did := atoi(t, l[0]), atoi(t, l[1])
		lines[[2]int{did, oid}]++
		if atoi(t, l[3]) != lines[[2]int{did, oid}] {
			t.Fatalf("ol_number not 1..n: %q", l)
		}
		delivered := oid < 2101
		amount := cents(t, l[8])
		if delivered && (l[6] != string(ts) || amount != 0) {
			t.Fatalf("delivered line %q: want ol_delivery_d = o_entry_d and amount 0.00", l)
		}
		if !delivered && (l[6] != copyNull || amount < 1 || amount > 999999) {
			t.Fatalf("undelivered line %q: want NULL delivery, amount in 0.01..9999.99", l)
		}
		if l[5] != strconv.Itoa(w) || l[7] != "5" || len(l[9]) != 24 {
			t.Fatalf("order line %q", l)
		}
	}
	for k, n := range olCnt {
		if lines[k] != n {
			t.Fatalf("order %v: %d lines, o_ol_cnt %d", k, lines[k], n)
		}
	}
	for i, n := range got["new_order"] {
		if atoi(t, n[0]) != 2101+i%900 || atoi(t, n[1]) != i/900+1 {
			t.Fatalf("new_order %d: %q, want o_id 2101..3000 per district", i, n)
		}
	}
	orig := 0
	for _, s := range got["stock"] {
		if q := atoi(t, s[2]); q < 10 || q > 100 {
			t.Fatalf("s_quantity %d", q)
		}
		if s[13] != "0" || s[14] != "0" || s[15] != "0" {
			t.Fatalf("stock counters %q", s)
		}
		if strings.Contains(s[16], "ORIGINAL") {
			orig++
		}
	}
	// 10% of 20,000: sd 0.21%; +-0.8% is four of them.
	if frac := float64(orig) / stockSample; frac < 0.092 || frac > 0.108 {
		t.Errorf("ORIGINAL in %.2f%% of s_data, want 10%%", 100*frac)
	}
}

func TestItemPopulation(t *testing.T) {
	t.Parallel()
	rows := generated(t, newItemGen(1), 0)
	if len(rows) != 100000 {
		t.Fatalf("%d items", len(rows))
	}
	orig := 0
	for i, r := range rows {
		if atoi(t, r[0]) != i+1 {
			t.Fatalf("i_id %s at %d", r[0], i)
		}
		if p := cents(t, r[3]); p < 100 || p > 10000 {
			t.Fatalf("i_price %s", r[3])
		}
		if im := atoi(t, r[1]); im < 1 || im > 10000 {
			t.Fatalf("i_im_id %d", im)
		}
		if strings.Contains(r[4], "ORIGINAL") {
			orig++
		}
	}
	if frac := float64(orig) / 100000; frac < 0.095 || frac > 0.105 {
		t.Errorf("ORIGINAL in %.2f%% of i_data, want 10%%", 100*frac)
	}
}

// TestGenerationDeterministic: same seed, same rows; another seed or
// warehouse, other rows.
func TestGenerationDeterministic(t *testing.T) {
	t.Parallel()
	// The first COPY chunk of every table is enough to tell streams apart;
	// whole-warehouse equality is TestLoadDeterministic's, in the database.
	heads := func(seed uint64, w int) []byte {
		var b []byte
		p := make([]byte, copyChunk)
		for _, j := range warehouseJobs(seed, w, 100, loadTimestamp(testNow)) {
			n, _ := io.ReadFull(newCopyReader(j.gen, nil), p)
			b = append(b, p[:n]...)
		}
		return b
	}
	a, b := heads(7, 2), heads(7, 2)
	if !bytes.Equal(a, b) {
		t.Error("two generations of seed 7, warehouse 2 differ")
	}
	if bytes.Equal(a, heads(8, 2)) || bytes.Equal(a, heads(7, 3)) {
		t.Error("another seed or warehouse generated the same rows")
	}
}

// TestRowsGolden pins the COPY text format and the seed's stream layout:
// changing either changes every loaded database, so it must be deliberate.
func TestRowsGolden(t *testing.T) {
	var out strings.Builder
	head := func(name string, g rowGen, drain bool) {
		out.WriteString("-- " + name + "\n")
		var b []byte
		for i := 0; ; i++ {
			var ok bool
			if b, ok = g.next(b[:0]); !ok || (i >= 2 && !drain) {
				break
			}
			if i < 2 {
				out.Write(b)
			}
		}
	}
	head("item", newItemGen(1), false)
	for _, j := range warehouseJobs(1, 0, MetaForSeed(1, 1, 1).Load.CLast, loadTimestamp(testNow)) {
		// "order" runs to the end: order_line reads its line counts.
		head(j.table.Name, j.gen, j.table.Name == `"order"`)
	}
	golden(t, "rows_seed1_w0", out.String())
}

// fakeRows generates n rows of lengths cycling through 1..max (each
// ending in '\n'), some longer than maxRowBytes.
type fakeRows struct{ i, n, max int }

func (f *fakeRows) next(b []byte) ([]byte, bool) {
	if f.i == f.n {
		return b, false
	}
	f.i++
	l := f.i*37%f.max + 1
	for k := 0; k < l-1; k++ {
		b = append(b, byte('a'+(f.i+k)%26))
	}
	return append(b, '\n'), true
}

// TestCopyReader: whatever the read sizes, the reader returns exactly the
// rows, in order, counted once each, then io.EOF.
func TestCopyReader(t *testing.T) {
	const rows, maxLen = 800, 3000
	var want []byte
	f := &fakeRows{n: rows, max: maxLen}
	for {
		var ok bool
		if want, ok = f.next(want); !ok {
			break
		}
	}
	for _, size := range []int{1, 7, maxRowBytes - 1, maxRowBytes, maxRowBytes + 1, 4096, copyChunk} {
		var counted int64
		r := newCopyReader(&fakeRows{n: rows, max: maxLen}, func(n int64) { counted += n })
		var got []byte
		p := make([]byte, size)
		for {
			n, err := r.Read(p)
			if n > len(p) || (n == 0 && err == nil) {
				t.Fatalf("size %d: Read returned %d, %v", size, n, err)
			}
			got = append(got, p[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got, want) {
			t.Errorf("reads of %d: %d bytes, want %d (first difference at %d)", size, len(got), len(want), firstDiff(got, want))
		}
		if r.rows.Load() != rows || counted != rows {
			t.Errorf("reads of %d: counted %d and %d rows, want %d", size, r.rows.Load(), counted, rows)
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestAppendInt compares the table-driven formatting with strconv at
// every length and boundary.
func TestAppendInt(t *testing.T) {
	vals := []int{-1000001, -12, -1}
	for v := 0; v < 100000; v++ {
		vals = append(vals, v)
	}
	for p := 100000; p <= 1e12; p *= 10 {
		vals = append(vals, p-1, p, p+1, p*7/3)
	}
	for _, v := range vals {
		if got, want := string(appendInt([]byte("x"), v)), "x"+strconv.Itoa(v); got != want {
			t.Fatalf("appendInt(%d) = %q, want %q", v, got, want)
		}
	}
}

func TestAppendCents(t *testing.T) {
	for _, tc := range []struct {
		c    int
		want string
	}{{0, "0.00"}, {1, "0.01"}, {-1000, "-10.00"}, {999999, "9999.99"}, {30000000, "300000.00"}, {-5, "-0.05"}} {
		if got := string(appendCents(nil, tc.c)); got != tc.want {
			t.Errorf("appendCents(%d) = %q, want %q", tc.c, got, tc.want)
		}
	}
	for _, tc := range []struct {
		v    int
		want string
	}{{0, "0.0000"}, {2000, "0.2000"}, {5, "0.0005"}, {1234, "0.1234"}} {
		if got := string(appendRate4(nil, tc.v)); got != tc.want {
			t.Errorf("appendRate4(%d) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// BenchmarkGenerateWarehouse measures the client's generation cost alone:
// rows/s and bytes/s for one warehouse, the process CPU time per warehouse
// (on a shared machine wall time overstates it), and allocations
// (expected: a few per table, none per row). Reads are pgconn's CopyData
// size.
func BenchmarkGenerateWarehouse(b *testing.B) {
	now := loadTimestamp(testNow)
	p := make([]byte, copyChunk)
	var rows, bytes int64
	b.ReportAllocs()
	c0 := rusageSelf(b)
	for i := 0; i < b.N; i++ {
		for _, j := range warehouseJobs(1, i, 100, now) {
			r := newCopyReader(j.gen, nil)
			for {
				n, err := r.Read(p)
				bytes += int64(n)
				if err == io.EOF {
					break
				}
			}
			rows += r.rows.Load()
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64((rusageSelf(b)-c0).Milliseconds())/float64(b.N), "cpu-ms/warehouse")
	b.SetBytes(bytes / int64(b.N))
}
