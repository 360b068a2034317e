package functions

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc"
)

// paymentOut is Payment's output screen (clause 2.5.3.3), as the
// function returns it.
type paymentOut struct {
	cID                                                   int32
	wS1, wS2, wCity, wState, wZip                         string
	dS1, dS2, dCity, dState, dZip                         string
	cFirst, cMiddle, cLast, cS1, cS2, cCity, cState, cZip string
	cPhone                                                string
	cSince                                                time.Time
	cCredit                                               string
	cCreditLim, cDiscount, cBalance                       float64
	cData                                                 string
}

// payment is clause 2.5.2 in one call.
func (e *executor) payment(ctx context.Context, db tpcc.Pool, home tpcc.Home) (int, error) {
	in := e.draw.Payment(home)
	var o paymentOut
	retries, err := e.call(ctx, db, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, paymentSQL, in.WID, in.DID, in.CWID, in.CDID, in.CID, in.CLast, in.Cents).Scan(
			&o.cID, &o.wS1, &o.wS2, &o.wCity, &o.wState, &o.wZip, &o.dS1, &o.dS2, &o.dCity, &o.dState, &o.dZip,
			&o.cFirst, &o.cMiddle, &o.cLast, &o.cS1, &o.cS2, &o.cCity, &o.cState, &o.cZip, &o.cPhone,
			&o.cSince, &o.cCredit, &o.cCreditLim, &o.cDiscount, &o.cBalance, &o.cData)
	})
	if err != nil {
		return retries, fmt.Errorf("payment (w %d, d %d): %w", in.WID, in.DID, err)
	}
	in.Tally(e.tally)
	return retries, nil
}
