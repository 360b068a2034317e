package pgdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/benchrig/benchrig/internal/redact"
)

// CreateDatabase creates the URL's database when it does not exist, like
// CockroachDB's workload does for its --db, by connecting to the
// "postgres" database (present on PostgreSQL and CockroachDB alike).
func CreateDatabase(ctx context.Context, url string) error {
	conn, err := pgx.Connect(ctx, url)
	if err == nil {
		conn.Close(ctx)
		return nil
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "3D000" { // invalid_catalog_name
		return fmt.Errorf("connect %s: %w", redact.URL(url), err)
	}
	cfg, perr := pgx.ParseConfig(url)
	if perr != nil {
		return fmt.Errorf("parse %s: %w", redact.URL(url), perr)
	}
	db := cfg.Database
	cfg.Database = "postgres"
	admin, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect to database postgres to create %s: %w", db, err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize()); err != nil {
		if errors.As(err, &pe) && pe.Code == "42P04" { // created meanwhile by another host
			return nil
		}
		return fmt.Errorf("create database %s: %w", db, err)
	}
	return nil
}
