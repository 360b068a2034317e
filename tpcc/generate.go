package tpcc

import (
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// This file generates the initial population of clause 4.3.3.1 as COPY
// text-format rows (tab-separated, \N for NULL). Text rather than pgx's
// binary CopyFromSource: every value here is an integer, a fixed-scale
// decimal, an alphanumeric string or one shared timestamp, which append to
// a reused buffer with no escaping, no allocation and no per-value type
// dispatch; and CockroachDB accepts COPY text where its binary COPY
// support is partial. BenchmarkCopyTextVsBinary measures the choice on
// stock: pgx's binary CopyFromSource costs the client 2.7-3.3x the CPU
// of this path (measured) for about the same server CPU. The client's
// share of a whole load is what BenchmarkLoad reports.

// Sub-stream tags: each table of a warehouse draws from its own PCG
// stream, so a table's rows do not depend on how many draws another
// table made, and any warehouse can be generated alone.
const (
	streamItem = iota + 1
	streamWarehouse
	streamStock
	streamDistrict
	streamCustomer
	streamHistory
	streamOrder
	streamOrderLine
)

func streamFor(wID, table int) uint64 { return uint64(wID)<<8 | uint64(table) }

// Population sizes of clause 4.3.3.1.
const (
	numItems             = 100000
	districtsPerW        = 10
	customersPerDistrict = 3000
	ordersPerDistrict    = 3000
	firstUndelivered     = 2101 // o_id >= 2101: undelivered, in new_order
	stockPerW            = numItems
)

// rowGen appends one COPY row (with its trailing newline) to dst and
// reports whether a row was produced.
type rowGen interface {
	next(dst []byte) ([]byte, bool)
}

// copyReader adapts a rowGen to the io.Reader COPY FROM STDIN consumes,
// generating rows only as the connection asks for bytes, so memory stays
// at one buffer however large the table.
type copyReader struct {
	gen  rowGen
	buf  []byte
	off  int
	done bool
	// rows counts what Read produced. pgconn.CopyFrom reads in a goroutine
	// of its own that can still be in Read when CopyFrom returns an error,
	// so the count is atomic.
	rows atomic.Int64
	// onRows is told how many rows each refill produced (progress).
	onRows func(int64)
}

const copyChunk = 64 << 10

func newCopyReader(g rowGen, onRows func(int64)) *copyReader {
	return &copyReader{gen: g, buf: make([]byte, 0, copyChunk+4096), onRows: onRows}
}

func (c *copyReader) Read(p []byte) (int, error) {
	if c.off == len(c.buf) {
		if c.done {
			return 0, io.EOF
		}
		c.buf, c.off = c.buf[:0], 0
		var n int64
		for len(c.buf) < copyChunk {
			var ok bool
			c.buf, ok = c.gen.next(c.buf)
			if !ok {
				c.done = true
				break
			}
			n++
		}
		c.rows.Add(n)
		if c.onRows != nil && n > 0 {
			c.onRows(n)
		}
		if len(c.buf) == 0 {
			return 0, io.EOF
		}
	}
	n := copy(p, c.buf[c.off:])
	c.off += n
	return n, nil
}

// Value formatting for COPY text.

func tab(dst []byte) []byte { return append(dst, '\t') }

func appendInt(dst []byte, v int) []byte { return strconv.AppendInt(dst, int64(v), 10) }

// appendCents writes a NUMERIC(p,2) from an integer number of cents.
func appendCents(dst []byte, cents int) []byte {
	if cents < 0 {
		dst = append(dst, '-')
		cents = -cents
	}
	dst = strconv.AppendInt(dst, int64(cents/100), 10)
	c := cents % 100
	return append(dst, '.', byte('0'+c/10), byte('0'+c%10))
}

// appendRate4 writes a NUMERIC(4,4) from v in ten-thousandths (0..9999).
func appendRate4(dst []byte, v int) []byte {
	return append(dst, '0', '.', byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
}

const copyNull = `\N`

// loadTimestamp formats the one timestamp used for every date column of a
// load (c_since, h_date, o_entry_d, ol_delivery_d: "current date and time"
// at population, clause 4.3.3.1).
func loadTimestamp(t time.Time) []byte {
	return []byte(t.UTC().Format("2006-01-02 15:04:05.000000"))
}

// itemGen: ITEM, clause 4.3.3.1.
type itemGen struct {
	r *Rand
	i int
}

func newItemGen(seed uint64) *itemGen { return &itemGen{r: NewRand(seed, streamFor(0, streamItem))} }

func (g *itemGen) next(b []byte) ([]byte, bool) {
	if g.i == numItems {
		return b, false
	}
	g.i++
	r := g.r
	b = appendInt(b, g.i)
	b = appendInt(tab(b), r.Int(1, 10000))         // i_im_id
	b = r.AppendAString(tab(b), 14, 24)            // i_name
	b = appendCents(tab(b), r.Int(100, 10000))     // i_price 1.00..100.00
	b = append(r.AppendData(tab(b), 26, 50), '\n') // i_data, 10% ORIGINAL
	return b, true
}

// address appends street_1, street_2, city, state, zip (clause 4.3.3.1).
func appendAddress(b []byte, r *Rand) []byte {
	b = r.AppendAString(b, 10, 20)
	b = r.AppendAString(tab(b), 10, 20)
	b = r.AppendAString(tab(b), 10, 20)
	b = r.AppendState(tab(b))
	return r.AppendZip(tab(b))
}

// warehouseGen: one WAREHOUSE row.
type warehouseGen struct {
	r    *Rand
	w    int
	done bool
}

func (g *warehouseGen) next(b []byte) ([]byte, bool) {
	if g.done {
		return b, false
	}
	g.done = true
	r := g.r
	b = appendInt(b, g.w)
	b = r.AppendAString(tab(b), 6, 10) // w_name
	b = appendAddress(tab(b), r)
	b = appendRate4(tab(b), r.Int(0, 2000)) // w_tax 0.0000..0.2000
	b = append(tab(b), "300000.00\n"...)    // w_ytd
	return b, true
}

// stockGen: 100,000 STOCK rows of a warehouse.
type stockGen struct {
	r    *Rand
	w    int
	i    int
	wTxt []byte
}

func (g *stockGen) next(b []byte) ([]byte, bool) {
	if g.i == stockPerW {
		return b, false
	}
	g.i++
	r := g.r
	b = appendInt(b, g.i)
	b = append(tab(b), g.wTxt...)
	b = appendInt(tab(b), r.Int(10, 100)) // s_quantity
	for d := 0; d < 10; d++ {             // s_dist_01..10: a-string of 24
		b = r.AppendAString(tab(b), 24, 24)
	}
	b = append(b, "\t0\t0\t0\t"...) // s_ytd, s_order_cnt, s_remote_cnt
	b = append(r.AppendData(b, 26, 50), '\n')
	return b, true
}

// districtGen: 10 DISTRICT rows.
type districtGen struct {
	r    *Rand
	d    int
	wTxt []byte
}

func (g *districtGen) next(b []byte) ([]byte, bool) {
	if g.d == districtsPerW {
		return b, false
	}
	g.d++
	r := g.r
	b = appendInt(b, g.d)
	b = append(tab(b), g.wTxt...)
	b = r.AppendAString(tab(b), 6, 10) // d_name
	b = appendAddress(tab(b), r)
	b = appendRate4(tab(b), r.Int(0, 2000))   // d_tax
	b = append(tab(b), "30000.00\t3001\n"...) // d_ytd, d_next_o_id
	return b, true
}

// customerGen: 3,000 CUSTOMER rows per district.
type customerGen struct {
	r     *Rand
	cLoad int // C-Load for C_LAST
	wTxt  []byte
	now   []byte
	d, c  int
}

func (g *customerGen) next(b []byte) ([]byte, bool) {
	if g.c == customersPerDistrict {
		if g.d == districtsPerW {
			return b, false
		}
		g.d, g.c = g.d+1, 0
	}
	if g.d == 0 {
		g.d = 1
	}
	g.c++
	r := g.r
	b = appendInt(b, g.c)
	b = appendInt(tab(b), g.d)
	b = append(tab(b), g.wTxt...)
	b = r.AppendAString(tab(b), 8, 16) // c_first
	b = append(b, "\tOE\t"...)         // c_middle
	// C_LAST: customers 1..1000 take name numbers 0..999 in order, the
	// rest NURand(255, 0, 999) with C-Load (clause 4.3.3.1, 4.3.2.3).
	if g.c <= 1000 {
		b = AppendLastName(b, g.c-1)
	} else {
		b = AppendLastName(b, r.NURand(aCLast, 0, 999, g.cLoad))
	}
	b = appendAddress(tab(b), r)
	b = r.AppendNString(tab(b), 16, 16) // c_phone
	b = append(tab(b), g.now...)        // c_since
	if r.Int(1, 10) == 1 {              // 10% bad credit
		b = append(b, "\tBC\t"...)
	} else {
		b = append(b, "\tGC\t"...)
	}
	b = append(b, "50000.00\t"...)                 // c_credit_lim
	b = appendRate4(b, r.Int(0, 5000))             // c_discount 0.0000..0.5000
	b = append(b, "\t-10.00\t10.00\t1\t0\t"...)    // c_balance, c_ytd_payment, c_payment_cnt, c_delivery_cnt
	b = append(r.AppendAString(b, 300, 500), '\n') // c_data
	return b, true
}

// historyGen: one HISTORY row per customer.
type historyGen struct {
	r    *Rand
	wTxt []byte
	now  []byte
	d, c int
}

func (g *historyGen) next(b []byte) ([]byte, bool) {
	if g.c == customersPerDistrict {
		if g.d == districtsPerW {
			return b, false
		}
		g.d, g.c = g.d+1, 0
	}
	if g.d == 0 {
		g.d = 1
	}
	g.c++
	b = appendInt(b, g.c)         // h_c_id
	b = appendInt(tab(b), g.d)    // h_c_d_id
	b = append(tab(b), g.wTxt...) // h_c_w_id
	b = appendInt(tab(b), g.d)    // h_d_id
	b = append(tab(b), g.wTxt...) // h_w_id
	b = append(tab(b), g.now...)  // h_date
	b = append(b, "\t10.00\t"...) // h_amount
	b = append(g.r.AppendAString(b, 12, 24), '\n')
	return b, true
}

// orderGen: 3,000 ORDER rows per district. It records each order's line
// count for orderLineGen, the only state shared between tables (30 KB).
type orderGen struct {
	r     *Rand
	wTxt  []byte
	now   []byte
	d, o  int
	perm  []int32
	olCnt *[districtsPerW][ordersPerDistrict]uint8
}

func (g *orderGen) next(b []byte) ([]byte, bool) {
	if g.o == ordersPerDistrict || g.d == 0 {
		if g.d == districtsPerW {
			return b, false
		}
		g.d, g.o = g.d+1, 0
		// O_C_ID is a random permutation of 1..3000 per district.
		g.perm = g.r.AppendPermutation(g.perm, customersPerDistrict)
	}
	g.o++
	r := g.r
	b = appendInt(b, g.o)
	b = appendInt(tab(b), g.d)
	b = append(tab(b), g.wTxt...)
	b = appendInt(tab(b), int(g.perm[g.o-1])) // o_c_id
	b = append(tab(b), g.now...)              // o_entry_d
	b = tab(b)
	if g.o < firstUndelivered {
		b = appendInt(b, r.Int(1, 10)) // o_carrier_id
	} else {
		b = append(b, copyNull...)
	}
	n := r.Int(5, 15)
	g.olCnt[g.d-1][g.o-1] = uint8(n)
	b = appendInt(tab(b), n)
	b = append(b, "\t1\n"...) // o_all_local
	return b, true
}

// orderLineGen: O_OL_CNT ORDER-LINE rows per order.
type orderLineGen struct {
	r        *Rand
	wTxt     []byte
	now      []byte
	d, o, n  int
	olCnt    *[districtsPerW][ordersPerDistrict]uint8
	finished bool
}

func (g *orderLineGen) next(b []byte) ([]byte, bool) {
	if g.finished {
		return b, false
	}
	if g.d == 0 {
		g.d, g.o = 1, 1
	}
	if g.n == int(g.olCnt[g.d-1][g.o-1]) {
		g.n = 0
		g.o++
		if g.o > ordersPerDistrict {
			g.o = 1
			g.d++
			if g.d > districtsPerW {
				g.finished = true
				return b, false
			}
		}
	}
	g.n++
	r := g.r
	b = appendInt(b, g.o)
	b = appendInt(tab(b), g.d)
	b = append(tab(b), g.wTxt...)
	b = appendInt(tab(b), g.n)
	b = appendInt(tab(b), r.Int(1, numItems)) // ol_i_id, uniform at load
	b = append(tab(b), g.wTxt...)             // ol_supply_w_id
	b = tab(b)
	if g.o < firstUndelivered {
		b = append(b, g.now...) // ol_delivery_d = o_entry_d
		b = append(b, "\t5\t0.00\t"...)
	} else {
		b = append(b, copyNull...)
		b = append(b, "\t5\t"...)
		b = appendCents(b, r.Int(1, 999999)) // 0.01..9999.99
		b = tab(b)
	}
	b = append(r.AppendAString(b, 24, 24), '\n') // ol_dist_info
	return b, true
}

// newOrderGen: NEW-ORDER rows for o_id 2101..3000 of each district.
type newOrderGen struct {
	wTxt []byte
	d, o int
}

func (g *newOrderGen) next(b []byte) ([]byte, bool) {
	if g.d == 0 {
		g.d, g.o = 1, firstUndelivered-1
	}
	if g.o == ordersPerDistrict {
		if g.d == districtsPerW {
			return b, false
		}
		g.d, g.o = g.d+1, firstUndelivered-1
	}
	g.o++
	b = appendInt(b, g.o)
	b = appendInt(tab(b), g.d)
	b = append(append(tab(b), g.wTxt...), '\n')
	return b, true
}

// tableJob is one COPY of one table.
type tableJob struct {
	table Table
	gen   rowGen
}

// warehouseJobs returns warehouse w's eight tables' generators in load
// order; order_line must follow "order" (it reads the line counts).
func warehouseJobs(seed uint64, w, cLoad int, now []byte) []tableJob {
	wTxt := strconv.AppendInt(nil, int64(w), 10)
	olCnt := new([districtsPerW][ordersPerDistrict]uint8)
	rs := func(t int) *Rand { return NewRand(seed, streamFor(w, t)) }
	// schemaTables is in load order: [0] item, [1..8] a warehouse's.
	ts := schemaTables()
	return []tableJob{
		{ts[1], &warehouseGen{r: rs(streamWarehouse), w: w}},
		{ts[2], &stockGen{r: rs(streamStock), w: w, wTxt: wTxt}},
		{ts[3], &districtGen{r: rs(streamDistrict), wTxt: wTxt}},
		{ts[4], &customerGen{r: rs(streamCustomer), cLoad: cLoad, wTxt: wTxt, now: now}},
		{ts[5], &historyGen{r: rs(streamHistory), wTxt: wTxt, now: now}},
		{ts[6], &orderGen{r: rs(streamOrder), wTxt: wTxt, now: now, olCnt: olCnt}},
		{ts[7], &orderLineGen{r: rs(streamOrderLine), wTxt: wTxt, now: now, olCnt: olCnt}},
		{ts[8], &newOrderGen{wTxt: wTxt}},
	}
}

// columnNames lists the columns a load fills, in the table's order, for
// COPY's column list: all but the generated ones (history's rowid).
func (t Table) columnNames() []string {
	var out []string
	for _, c := range t.columns {
		name, _, _ := strings.Cut(c, " ")
		if name != t.generated {
			out = append(out, name)
		}
	}
	return out
}

func (t Table) copySQL() string {
	return "COPY " + t.Name + " (" + strings.Join(t.columnNames(), ", ") + ") FROM STDIN"
}
