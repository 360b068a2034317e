package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestStartQueryStop(t *testing.T) {
	s := Start(t, NoSync())
	ctx := context.Background()
	url := s.CreateDatabase(t, "bench")
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var fsync, addr, user string
	if err := conn.QueryRow(ctx, "SELECT current_setting('fsync'), current_setting('listen_addresses'), current_user").Scan(&fsync, &addr, &user); err != nil {
		t.Fatal(err)
	}
	if fsync != "off" || addr != "127.0.0.1" || user != "postgres" {
		t.Errorf("fsync=%q listen_addresses=%q user=%q, want off, 127.0.0.1, postgres", fsync, addr, user)
	}
	// The server must not run as root (PostgreSQL refuses; we drop to
	// the unprivileged user).
	st, err := os.Stat("/proc/" + itoa(s.PID()))
	if err != nil {
		t.Fatal(err)
	}
	if uid := statUID(st); uid == 0 {
		t.Errorf("postmaster runs as root")
	}
	// CPU accounting must see the backend serving this connection.
	before, err := s.CPUTime()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "SELECT count(*) FROM generate_series(1, 3000000)"); err != nil {
		t.Fatal(err)
	}
	after, err := s.CPUTime()
	if err != nil {
		t.Fatal(err)
	}
	if after <= before {
		t.Errorf("server CPU did not grow across a 3M-row query: %v -> %v", before, after)
	}
	conn.Close(ctx)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil { // idempotent
		t.Fatal(err)
	}
	if _, err := pgx.Connect(ctx, url); err == nil {
		t.Error("connect succeeded after Stop")
	}
}

func TestDefaultIsDurable(t *testing.T) {
	s := Start(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var fsync string
	if err := conn.QueryRow(ctx, "SHOW fsync").Scan(&fsync); err != nil {
		t.Fatal(err)
	}
	if fsync != "on" {
		t.Errorf("fsync = %q without NoSync, want on", fsync)
	}
}

func TestProcStat(t *testing.T) {
	f, err := procStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if f.ppid != os.Getppid() {
		t.Errorf("ppid = %d, want %d", f.ppid, os.Getppid())
	}
}
