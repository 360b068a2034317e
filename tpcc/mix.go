package tpcc

import (
	"time"

	"github.com/benchrig/benchrig/tpcc/histogram"
)

// TxnType is one of the five TPC-C transactions.
type TxnType uint8

// The transactions, in the order of clauses 2.4 to 2.8.
const (
	NewOrderTxn TxnType = iota
	PaymentTxn
	OrderStatusTxn
	DeliveryTxn
	StockLevelTxn
	numTxnTypes
)

// txnSpec holds what clause 5.2.5.7 fixes per transaction type.
type txnSpec struct {
	name      string        // histogram name, as CockroachDB's workload writes it
	cards     int           // cards in the 23-card deck (clause 5.2.4.2)
	keying    time.Duration // minimum keying time (clause 5.2.5.2), constant
	thinkMean time.Duration // minimum mean think time (clause 5.2.5.4)
}

// specs is indexed by TxnType. A function, not a package variable, so
// nothing can mutate it.
func specs() [numTxnTypes]txnSpec {
	return [numTxnTypes]txnSpec{
		NewOrderTxn:    {histogram.NewOrder, 10, 18 * time.Second, 12 * time.Second},
		PaymentTxn:     {histogram.Payment, 10, 3 * time.Second, 12 * time.Second},
		OrderStatusTxn: {histogram.OrderStatus, 1, 2 * time.Second, 10 * time.Second},
		DeliveryTxn:    {histogram.Delivery, 1, 2 * time.Second, 5 * time.Second},
		StockLevelTxn:  {histogram.StockLevel, 1, 2 * time.Second, 5 * time.Second},
	}
}

// String returns the histogram name ("newOrder", ...).
func (t TxnType) String() string {
	if t >= numTxnTypes {
		return "unknown"
	}
	return specs()[t].name
}

// DeckSize is the number of cards in a terminal's deck.
const DeckSize = 23

// Deck is a terminal's deck of transaction cards. Clause 5.2.4.2: "the
// required mix is achieved by selecting each new transaction uniformly at
// random from a deck whose content guarantees the required transaction mix
// ... Each pass through a deck must be made in a different uniformly random
// order." 10 New-Order, 10 Payment and one each of Order-Status, Delivery
// and Stock-Level give 43.5/43.5/4.35/4.35/4.35%, above every minimum of
// clause 5.2.3.
//
// It is 24 bytes: one exists per emulated terminal (200,000 for 20,000
// warehouses). Unlike go-tpc, whose deck index never advances and so never
// reshuffles, Next really walks the deck and reshuffles at the end of every
// pass.
type Deck struct {
	cards [DeckSize]TxnType
	pos   uint8 // next card; DeckSize means "shuffle first"
}

// NewDeck returns a deck whose first pass is shuffled on the first Next.
func NewDeck() Deck {
	var d Deck
	i := 0
	for t, s := range specs() {
		for range s.cards {
			d.cards[i] = TxnType(t)
			i++
		}
	}
	d.pos = DeckSize
	return d
}

// Next draws the next card, reshuffling (Fisher-Yates) when a pass ends.
// A deck of a smaller --mix (NewDeckMix) skips its empty slots.
func (d *Deck) Next(r *Rand) TxnType {
	for {
		if d.pos >= DeckSize {
			for i := DeckSize - 1; i > 0; i-- {
				j := r.Int(0, i)
				d.cards[i], d.cards[j] = d.cards[j], d.cards[i]
			}
			d.pos = 0
		}
		t := d.cards[d.pos]
		d.pos++
		if t != noCard {
			return t
		}
	}
}
