package hostmetrics

import (
	"math"
	"strings"
	"testing"
)

// TestReadHostile: a samples file is the host's to write; one that no
// sampler writes is refused whole, naming the line, never plotted in part.
func TestReadHostile(t *testing.T) {
	line := func(tm, rest string) string {
		return `{"schema":"benchrig.hoststat/v1","host":"a","t":"` + tm + `","interval_s":1` + rest + "}\n"
	}
	ok := line("2026-12-03T08:00:01Z", `,"cpu":{"cpus":4,"user":10,"idle":90}`)
	if ss, err := Read(strings.NewReader(ok + line("2026-12-03T08:00:02Z", ""))); err != nil || len(ss) != 2 {
		t.Fatalf("honest file: %d samples, %v", len(ss), err)
	}
	for _, tc := range []struct{ name, second, err string }{
		{"duplicate time", line("2026-12-03T08:00:01Z", ""), "not after"},
		{"time going back", line("2026-12-03T08:00:00Z", ""), "not after"},
		{"no time", line("0001-01-01T00:00:00Z", ""), "no sample's"},
		{"negative cpu", line("2026-12-03T08:00:02Z", `,"cpu":{"user":-1}`), "cpu user"},
		{"absurd cpu", line("2026-12-03T08:00:02Z", `,"cpu":{"system":1e9}`), "cpu system"},
		{"absurd rate", line("2026-12-03T08:00:02Z", `,"net":[{"name":"eth0","rx_bytes_per_s":1e300}]`), "net rx bytes"},
		{"negative interval", line("2026-12-03T08:00:02Z", `,"interval_s":-1`), "interval"},
		{"more available than total", line("2026-12-03T08:00:02Z", `,"mem":{"total":1,"available":2}`), "available"},
		{"a huge line", line("2026-12-03T08:00:02Z", `,"host2":"`+strings.Repeat("x", maxSampleLine)+`"`), "longer than"},
		{"many disks", line("2026-12-03T08:00:02Z", `,"disks":[`+strings.TrimSuffix(strings.Repeat(`{"name":"d"},`, maxDevices+1), ",")+`]`), "disks"},
	} {
		ss, err := Read(strings.NewReader(ok + tc.second))
		if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "line 2") || ss != nil {
			t.Errorf("%s: %d samples, %v; want refused with %q at line 2", tc.name, len(ss), err, tc.err)
		}
	}
}

func FuzzReadSamples(f *testing.F) {
	f.Add([]byte(`{"schema":"benchrig.hoststat/v1","host":"a","t":"2026-12-03T08:00:01Z","interval_s":1,"cpu":{"user":1}}` + "\n"))
	f.Add([]byte(`{"schema":"benchrig.hoststat/v1","t":"2026-12-03T08:00:01Z","cpu":{"user":-1}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, err := Read(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		for i, s := range ss {
			if i > 0 && !s.Time.After(ss[i-1].Time) {
				t.Fatalf("accepted out-of-order samples")
			}
			for _, v := range []float64{s.Interval, s.Load1, s.CPU.User, s.CPU.System, s.CPU.Idle, s.CPU.IOWait, s.CPU.IRQ, s.CPU.Steal} {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					t.Fatalf("accepted %v", v)
				}
			}
		}
	})
}
