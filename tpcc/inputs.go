package tpcc

import "slices"

// Inputs draws the transactions' inputs as the spec's terminals do
// (clauses 2.4.1, 2.5.1, 2.6.1, 2.7.1 and 2.8.1) from one executor's
// random stream. A profile draws a transaction's input once, before its
// first attempt, so that a retried attempt re-executes the same business
// transaction. The pipelined and functions profiles draw with it; the
// workload profile draws as CockroachDB's workload does.
type Inputs struct {
	Rand       *Rand
	Constants  Constants // C-Run (clause 2.1.6)
	Warehouses int       // W: remote warehouses are drawn from 0..W-1
}

// Inputs draws from the session's stream and constants.
func (s Session) Inputs() Inputs {
	return Inputs{Rand: s.Rand, Constants: s.Constants, Warehouses: s.Warehouses}
}

// OtherWarehouse draws a warehouse other than home uniformly from the W
// warehouses 0..W-1 (clauses 2.4.1.5.2, 2.5.1.2). Requires W > 1.
func (g Inputs) OtherWarehouse(home int32) int32 {
	x := int32(g.Rand.Int(0, g.Warehouses-2))
	if x >= home {
		x++
	}
	return x
}

// NewOrderLine is one line's input (clause 2.4.1.5).
type NewOrderLine struct {
	ItemID, SupplyWID, Quantity int32
}

// NewOrderInput is a New-Order's input (clause 2.4.1).
type NewOrderInput struct {
	WID, DID, CID int32
	Lines         []NewOrderLine
	Rollback      bool // the last line carries an unused item id (clause 2.4.1.4)
	AllLocal      bool
}

// UnusedItemID is outside 1..100000 (clause 2.4.1.5.1 and 2.4.1.4: "an
// unused value"), so the item lookup finds nothing and the transaction
// rolls back.
const UnusedItemID = 100001

// NewOrder draws a New-Order's input into in, reusing its lines
// (clause 2.4.1).
func (g Inputs) NewOrder(in *NewOrderInput, home Home) {
	r := g.Rand
	in.WID = home.W
	in.DID = int32(r.Int(1, 10))              // 2.4.1.2: D_ID random within [1 .. 10]
	in.CID = int32(r.CustomerID(g.Constants)) // 2.4.1.2: C_ID = NURand(1023, 1, 3000)
	n := r.Int(5, 15)                         // 2.4.1.3: ol_cnt random within [5 .. 15]
	in.Rollback = r.Int(1, 100) == 1          // 2.4.1.4: rbk = 1 for 1% of New-Orders
	in.Lines = in.Lines[:0]
	in.AllLocal = true
	for i := range n {
		var item int32
		if in.Rollback && i == n-1 {
			item = UnusedItemID
		} else {
			// Item ids are redrawn until distinct: the batched stock
			// UPDATE needs one row per (supply warehouse, item), and
			// CockroachDB's and go-tpc's drivers do the same.
			for {
				item = int32(r.ItemID(g.Constants)) // 2.4.1.5.1: NURand(8191, 1, 100000)
				if !slices.ContainsFunc(in.Lines, func(l NewOrderLine) bool { return l.ItemID == item }) {
					break
				}
			}
		}
		supply := in.WID
		// 2.4.1.5.2: 99% home, 1% a random remote warehouse (never
		// remote with a single warehouse).
		if g.Warehouses > 1 && r.Int(1, 100) == 1 {
			supply = g.OtherWarehouse(in.WID)
			in.AllLocal = false
		}
		in.Lines = append(in.Lines, NewOrderLine{
			ItemID: item, SupplyWID: supply,
			Quantity: int32(r.Int(1, 10)), // 2.4.1.5.3
		})
	}
}

// Supply is line i's supplying warehouse (for Tally.NewOrder).
func (in *NewOrderInput) Supply(i int) int32 { return in.Lines[i].SupplyWID }

// PaymentInput is a Payment's input (clause 2.5.1).
type PaymentInput struct {
	WID, DID   int32
	CWID, CDID int32
	CID        int32  // 0 when selecting by last name
	CLast      string // set when selecting by last name
	Cents      int64  // H_AMOUNT in cents
}

// Payment draws a Payment's input (clause 2.5.1).
func (g Inputs) Payment(home Home) PaymentInput {
	r := g.Rand
	in := PaymentInput{WID: home.W, DID: int32(r.Int(1, 10))} // 2.5.1.1, 2.5.1.2
	// 2.5.1.2: x ≤ 85 pays at home; otherwise the customer belongs to a
	// random remote warehouse and district (never with one warehouse).
	in.CWID, in.CDID = in.WID, in.DID
	if g.Warehouses > 1 && r.Int(1, 100) > 85 {
		in.CWID = g.OtherWarehouse(in.WID)
		in.CDID = int32(r.Int(1, 10))
	}
	// 2.5.1.2: y ≤ 60 selects by last name (NURand(255, 0, 999) with
	// C-Run), else by C_ID = NURand(1023, 1, 3000).
	if r.Int(1, 100) <= 60 {
		in.CLast = r.LastNameRun(g.Constants)
	} else {
		in.CID = int32(r.CustomerID(g.Constants))
	}
	in.Cents = int64(r.Int(100, 500000)) // 2.5.1.3: H_AMOUNT random within [1.00 .. 5,000.00]
	return in
}

// Tally records a committed Payment of in (clause 2.5.1.2's remote and
// by-name shares).
func (in PaymentInput) Tally(t Tally) { t.Payment(in.WID, in.CWID, in.CLast != "") }

// OrderStatusInput is an Order-Status's input (clause 2.6.1).
type OrderStatusInput struct {
	WID, DID int32
	CID      int32  // 0 when selecting by last name
	CLast    string // set when selecting by last name
}

// OrderStatus draws an Order-Status's input (clause 2.6.1): always the
// home warehouse.
func (g Inputs) OrderStatus(home Home) OrderStatusInput {
	r := g.Rand
	in := OrderStatusInput{WID: home.W, DID: int32(r.Int(1, 10))} // 2.6.1.2
	if r.Int(1, 100) <= 60 {                                      // 2.6.1.2: 60% by last name
		in.CLast = r.LastNameRun(g.Constants)
	} else {
		in.CID = int32(r.CustomerID(g.Constants))
	}
	return in
}

// Delivery draws a Delivery's input (clause 2.7.1.2): O_CARRIER_ID
// random within [1 .. 10].
func (g Inputs) Delivery() int32 { return int32(g.Rand.Int(1, 10)) }

// StockLevel draws a Stock-Level's input (clause 2.8.1.2): the
// threshold, random within [10 .. 20].
func (g Inputs) StockLevel() int32 { return int32(g.Rand.Int(10, 20)) }
