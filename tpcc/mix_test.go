package tpcc

import (
	"math"
	"testing"
	"time"
)

func TestDeckPassHasExactMix(t *testing.T) {
	r := NewRand(1, 2)
	d := NewDeck()
	orders := map[[DeckSize]TxnType]bool{}
	for pass := range 200 {
		var got [numTxnTypes]int
		var order [DeckSize]TxnType
		for i := range DeckSize {
			c := d.Next(r)
			got[c]++
			order[i] = c
		}
		if want := [numTxnTypes]int{10, 10, 1, 1, 1}; got != want {
			t.Fatalf("pass %d: cards %v, want %v", pass, got, want)
		}
		orders[order] = true
	}
	// Clause 5.2.4.2: each pass in a different random order. With
	// 23!/(10!·10!) orders, 200 passes repeat only if the shuffle is broken
	// (go-tpc's never runs).
	if len(orders) < 195 {
		t.Errorf("only %d distinct orders in 200 passes: deck is not reshuffled", len(orders))
	}
}

func TestDeckPositionsUniform(t *testing.T) {
	// Every position of a pass must be equally likely to hold a New-Order
	// card (10/23), or the shuffle is biased.
	r := NewRand(3, 4)
	d := NewDeck()
	const passes = 20000
	var atPos [DeckSize]int
	for range passes {
		for i := range DeckSize {
			if d.Next(r) == NewOrderTxn {
				atPos[i]++
			}
		}
	}
	p := 10.0 / 23
	sd := math.Sqrt(passes * p * (1 - p))
	for i, n := range atPos {
		if math.Abs(float64(n)-passes*p) > 5*sd {
			t.Errorf("position %d holds New-Order %d times, want %.0f ± %.0f", i, n, passes*p, 5*sd)
		}
	}
}

func TestDeckSize(t *testing.T) {
	if n := unsafeSizeofDeck(); n > 24 {
		t.Errorf("Deck is %d bytes; one exists per terminal", n)
	}
}

func TestKeyingTimes(t *testing.T) {
	for _, tc := range []struct {
		txn    TxnType
		factor float64
		want   time.Duration
	}{
		{NewOrderTxn, 1, 18 * time.Second},
		{PaymentTxn, 1, 3 * time.Second},
		{OrderStatusTxn, 1, 2 * time.Second},
		{DeliveryTxn, 1, 2 * time.Second},
		{StockLevelTxn, 1, 2 * time.Second},
		{NewOrderTxn, 0.01, 180 * time.Millisecond},
		{PaymentTxn, 0, 0},
	} {
		if got := KeyingTime(tc.txn, tc.factor); got != tc.want {
			t.Errorf("KeyingTime(%v, %v) = %v, want %v", tc.txn, tc.factor, got, tc.want)
		}
	}
}

func TestThinkTimeDistribution(t *testing.T) {
	r := NewRand(5, 6)
	for _, tc := range []struct {
		txn  TxnType
		mean time.Duration
	}{
		{NewOrderTxn, 12 * time.Second},
		{PaymentTxn, 12 * time.Second},
		{OrderStatusTxn, 10 * time.Second},
		{DeliveryTxn, 5 * time.Second},
		{StockLevelTxn, 5 * time.Second},
	} {
		t.Run(tc.txn.String(), func(t *testing.T) {
			const n = 200000
			var sum float64
			var capped int
			maxSeen := time.Duration(0)
			for range n {
				d := ThinkTime(r, tc.txn, 1)
				if d < 0 {
					t.Fatalf("negative think time %v", d)
				}
				if d == 10*tc.mean {
					capped++
				}
				maxSeen = max(maxSeen, d)
				sum += float64(d)
			}
			if maxSeen > 10*tc.mean {
				t.Errorf("max %v exceeds the 10× mean cap %v", maxSeen, 10*tc.mean)
			}
			// The truncated exponential has mean μ(1 − e^−10); its standard
			// error over n draws is about μ/√n.
			mean := sum / n
			want := float64(tc.mean) * (1 - math.Exp(-10))
			if se := float64(tc.mean) / math.Sqrt(n); math.Abs(mean-want) > 5*se {
				t.Errorf("mean %v, want %v ± %v", time.Duration(mean), time.Duration(want), time.Duration(5*se))
			}
			// P(X > 10μ) = e^−10 ≈ 4.5e-5: about 9 of 200,000 draws are capped.
			if capped == 0 || capped > 40 {
				t.Errorf("%d draws capped at 10× mean, want ≈ %.0f", capped, n*math.Exp(-10))
			}
			if f := ThinkTime(r, tc.txn, 0.01); f > tc.mean/10 {
				t.Errorf("factor 0.01 gives %v, above the 10× cap scaled (%v)", f, tc.mean/10)
			}
		})
	}
}
