package pgtest

import (
	"syscall"
	"testing"
	"time"
)

// SelfCPU is the CPU time (user and system) this process has used: a
// benchmark's client side.
func SelfCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ServerCPU is srv's CPU time (Server.CPUTime), failing tb when it cannot
// be read.
func ServerCPU(tb testing.TB, srv interface{ CPUTime() (time.Duration, error) }) time.Duration {
	d, err := srv.CPUTime()
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// ReportPer1000NewOrders reports client and server CPU per 1,000
// New-Orders, and their ratio.
func ReportPer1000NewOrders(b *testing.B, client, server time.Duration, newOrders float64) {
	per1000 := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / newOrders * 1000 }
	b.ReportMetric(per1000(client), "client-CPU-ms/1000-NO")
	b.ReportMetric(per1000(server), "server-CPU-ms/1000-NO")
	if server > 0 {
		b.ReportMetric(float64(client)/float64(server), "client/server-CPU")
	}
}
