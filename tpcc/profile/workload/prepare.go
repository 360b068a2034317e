package workload

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// wlStmt is one of the fixed statements: workload's name for it and its
// SQL.
type wlStmt struct{ name, sql string }

// stmtSet is the fixed statements as the server described them when they
// were prepared: their parameter and result column types, which are the
// schema's and so the same on every connection of the run. One set serves
// every connection prepared; each connection carries only a mark
// (preparedKey in its pgconn's CustomData). pgx's own Prepare keeps a map
// of 18 descriptions on each connection: 200,070 copies on a 100k host.
type stmtSet struct {
	bySQL map[string]*pgconn.StatementDescription
}

// preparedKey marks a connection whose fixed statements are prepared; its
// value is the run's *stmtSet.
const preparedKey = "benchrig.tpcc.profile.workload.prepared"

// prepareConn prepares the fixed statements on c unless they already are,
// and returns the run's set.
//
// All of them go in one round trip: Parse and Describe of each, then one
// Sync (workload prepares one statement at a time: 18 round trips, which
// on a 100k host's 200,070 connections was most of the warm-up; the
// server ends in the same state, the statements named as workload names
// them). A connection whose prepare fails may hold some of the
// statements, and a second Parse of a name fails: it is closed, and its
// pool dials a new one.
//
// fidelity:v20.1/D21
func (p *Profile) prepareConn(ctx context.Context, c *pgx.Conn) (*stmtSet, error) {
	pc := c.PgConn()
	if s, ok := pc.CustomData()[preparedKey].(*stmtSet); ok {
		return s, nil
	}
	sds, err := preparePipelined(ctx, pc, p.stmtList)
	if err != nil {
		_ = c.Close(context.Background())
		return nil, err
	}
	s := p.stmts.Load()
	if s == nil {
		// The first connection's descriptions become the run's; a
		// pipeline's carries the types only, not the name the statement
		// was prepared under. Later connections' are dropped as read.
		s = &stmtSet{bySQL: make(map[string]*pgconn.StatementDescription, len(sds))}
		for i, st := range p.stmtList {
			s.bySQL[st.sql] = &pgconn.StatementDescription{Name: st.name, SQL: st.sql, ParamOIDs: sds[i].ParamOIDs, Fields: sds[i].Fields}
		}
		if !p.stmts.CompareAndSwap(nil, s) {
			s = p.stmts.Load()
		}
	}
	pc.CustomData()[preparedKey] = s
	return s, nil
}

// preparePipelined sends Parse and Describe of every statement, then one
// Sync, and returns the server's descriptions in order (their types; the
// pipeline leaves Name and SQL empty).
func preparePipelined(ctx context.Context, pc *pgconn.PgConn, stmts []wlStmt) ([]*pgconn.StatementDescription, error) {
	pl := pc.StartPipeline(ctx)
	for _, s := range stmts {
		pl.SendPrepare(s.name, s.sql, nil)
	}
	if err := pl.Sync(); err != nil {
		_ = pl.Close()
		return nil, fmt.Errorf("prepare: %w", err)
	}
	sds := make([]*pgconn.StatementDescription, len(stmts))
	for i, s := range stmts {
		res, err := pl.GetResults()
		if err != nil {
			_ = pl.Close()
			return nil, fmt.Errorf("prepare %s: %w", s.name, err)
		}
		sd, ok := res.(*pgconn.StatementDescription)
		if !ok {
			_ = pl.Close()
			return nil, fmt.Errorf("prepare %s: got %T, not a statement description", s.name, res)
		}
		sds[i] = sd
	}
	res, err := pl.GetResults()
	if err == nil {
		if _, ok := res.(*pgconn.PipelineSync); !ok {
			err = fmt.Errorf("got %T, not the Sync's reply", res)
		}
	}
	if cerr := pl.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	return sds, nil
}

// stmt is sql's description when it is one of the prepared statements
// and this transaction's connection has them.
func (t *wlTx) stmt(sql string) *pgconn.StatementDescription {
	if t.stmts == nil {
		return nil
	}
	return t.stmts.bySQL[sql]
}

// rows runs sql with args: a prepared statement by its name (Bind and
// Execute, one round trip, as pgx runs a statement it prepared), any
// other statement through pgx.
//
// fidelity:v20.1/D17
func (t *wlTx) rows(sql string, args []any) (pgx.Rows, error) {
	if sd := t.stmt(sql); sd != nil {
		return t.prepared(sd, args)
	}
	return t.c.Query(t.ctx, sql, args...)
}

// prepared runs the prepared statement sd with args.
func (t *wlTx) prepared(sd *pgconn.StatementDescription, args []any) (pgx.Rows, error) {
	if err := t.eqb.Build(t.c.TypeMap(), sd, args); err != nil {
		return nil, fmt.Errorf("%s: %w", sd.Name, err)
	}
	return pgx.RowsFromResultReader(t.c.TypeMap(), t.c.PgConn().ExecStatement(t.ctx, sd, t.eqb.ParamValues, t.eqb.ParamFormats, t.eqb.ResultFormats)), nil
}

// scanOne scans rows' first row into dest and closes rows, as pgx's
// QueryRow does: pgx.ErrNoRows when there is none.
func scanOne(rows pgx.Rows, dest []any) error {
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	rows.Close()
	return rows.Err()
}
