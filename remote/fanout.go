package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/benchrig/benchrig/internal/termsafe"
)

// DefaultFanout is Each's concurrency when none is given: pssh's and
// roachprod's default. Handshakes are limited separately (SSHConfig.
// DialConcurrency), so this only bounds commands in flight.
const DefaultFanout = 32

// Outcome is what one host's part of a fan-out came to.
type Outcome struct {
	Host     string
	Err      error
	Duration time.Duration
}

// Status classifies an outcome for the summary: "ok", "failed" (the
// command exited non-zero, or another error), "timed out", "transport"
// (unreachable, or the connection broke) or "cancelled".
func (o Outcome) Status() string {
	var te *TransportError
	var to *TimeoutError
	switch {
	case o.Err == nil:
		return "ok"
	case errors.As(o.Err, &to):
		return "timed out"
	case errors.As(o.Err, &te):
		return "transport"
	case errors.Is(o.Err, context.Canceled):
		return "cancelled"
	}
	return "failed"
}

// Each calls fn for every host, at most limit at once (DefaultFanout if
// limit <= 0), waits for all of them, and returns their outcomes in the
// order of hosts. One host failing does not stop the others: the caller
// decides the policy from the outcomes (cancel ctx for fail-fast). Hosts
// not yet started when ctx ends are reported with ctx's error.
func Each(ctx context.Context, hosts []string, limit int, fn func(ctx context.Context, host string) error) []Outcome {
	if limit <= 0 {
		limit = DefaultFanout
	}
	outs := make([]Outcome, len(hosts))
	var g errgroup.Group
	g.SetLimit(limit)
	for i, h := range hosts {
		outs[i].Host = h
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				outs[i].Err = err
				return nil
			}
			start := time.Now()
			outs[i].Err = fn(ctx, h)
			outs[i].Duration = time.Since(start)
			return nil
		})
	}
	_ = g.Wait() // the goroutines report through outs, never through g
	return outs
}

// Failed joins the errors of the outcomes that failed, in host order; nil
// if all succeeded. errors.As finds typed errors (*TransportError,
// *ExitError, *TimeoutError) through it.
func Failed(outs []Outcome) error {
	var errs []error
	for _, o := range outs {
		if o.Err != nil {
			errs = append(errs, o.Err)
		}
	}
	return errors.Join(errs...)
}

// WriteSummary writes one line per host (status, duration, first line of
// the error) and a totals line:
//
//	host-01  ok          0.21s
//	host-02  failed      0.20s  host host-02: command exited with status 1
//	2 hosts: 1 ok, 1 failed
func WriteSummary(w io.Writer, outs []Outcome) error {
	width := 0
	for _, o := range outs {
		width = max(width, len(o.Host))
	}
	counts := map[string]int{}
	var b strings.Builder
	for _, o := range outs {
		st := o.Status()
		counts[st]++
		fmt.Fprintf(&b, "%-*s  %-9s  %6.2fs", width, o.Host, st, o.Duration.Seconds())
		if o.Err != nil {
			msg, _, _ := strings.Cut(o.Err.Error(), "\n")
			fmt.Fprintf(&b, "  %s", termsafe.String(msg)) // it may quote the host
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%d hosts:", len(outs))
	sep := " "
	for _, st := range []string{"ok", "failed", "timed out", "transport", "cancelled"} {
		if n := counts[st]; n > 0 || st == "ok" {
			label := st
			if st == "transport" {
				label = "transport errors"
			}
			fmt.Fprintf(&b, "%s%d %s", sep, n, label)
			sep = ", "
		}
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// EachSummarized is Each followed by the report exec, put and get give:
// the per-host summary (WriteSummary) to w when there is more than one
// host or any failed, and the joined failures (Failed).
func EachSummarized(ctx context.Context, w io.Writer, hosts []string, limit int, fn func(ctx context.Context, host string) error) error {
	outs := Each(ctx, hosts, limit, fn)
	if len(outs) > 1 || Failed(outs) != nil {
		if err := WriteSummary(w, outs); err != nil {
			return err
		}
	}
	return Failed(outs)
}
