package probe

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/jsonschema"
	"github.com/benchrig/benchrig/internal/result"
)

func TestFioFromKV(t *testing.T) {
	for _, tc := range []struct {
		kv     map[string]string
		status string
		read   float64
		bad    bool
	}{
		{map[string]string{"fio": "skipped"}, "skipped", 0, false},
		{map[string]string{"fio": "absent"}, "absent", 0, false},
		{map[string]string{"fio": "ran"}, "failed", 0, false},
		{map[string]string{"fio_read_iops": "12000", "fio_write_iops": "4000", "fio_read_kib": "48000", "fio_write_kib": "16000"}, "measured", 12000, false},
		{map[string]string{"fio_read_iops": "12000", "fio_write_iops": "x", "fio_read_kib": "1", "fio_write_kib": "1"}, "", 0, true},
		{map[string]string{"fio_read_iops": "-1", "fio_write_iops": "1", "fio_read_kib": "1", "fio_write_kib": "1"}, "", 0, true},
	} {
		f, err := FioFromKV("db1", "/data", "256M", 10*time.Second, tc.kv)
		if (err != nil) != tc.bad || f.Status != tc.status || f.ReadIOPS != tc.read {
			t.Errorf("%v: %+v, %v", tc.kv, f, err)
		}
	}
}

func TestNewClockHost(t *testing.T) {
	sent := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	received := sent.Add(4 * time.Millisecond)
	// The host read its clock 1.5 ms after the midpoint (2 ms after sent).
	c := NewClockHost("load1", sent, received, float64(sent.Add(3500*time.Microsecond).UnixNano())/1e9)
	if c.RTTMs != 4 || c.OffsetMs < 1.49 || c.OffsetMs > 1.51 {
		t.Errorf("%+v, want offset 1.5 ms, rtt 4 ms", c)
	}
}

// TestSchema: both kinds match docs/schema/result.v1.json.
func TestSchema(t *testing.T) {
	s, err := jsonschema.Load("../../docs/schema/result.v1.json")
	if err != nil {
		t.Fatal(err)
	}
	fio, _ := FioFromKV("db1", "/data", "256M", 10*time.Second, map[string]string{"fio_read_iops": "1", "fio_write_iops": "2", "fio_read_kib": "3", "fio_write_kib": "4"})
	skipped, _ := FioFromKV("load1", "/home/bench", "0", 0, map[string]string{"fio": "skipped"})
	clock := NewClock()
	clock.Hosts = append(clock.Hosts, NewClockHost("load1", time.Unix(1, 0), time.Unix(1, 2e6), 1.001))
	for _, v := range []any{fio, skipped, clock, NewClock()} {
		doc, err := result.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if errs := s.Validate(doc); len(errs) > 0 {
			t.Errorf("%s\ndoes not match the schema:\n%s", doc, strings.Join(errs, "\n"))
		}
	}
}

// A host's clock answer is its own: only finite Unix seconds of a
// plausible year are taken.
func TestParseClock(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"1764907200.123456789\n", true},
		{"1764907200", true},
		{"NaN", false},
		{"Inf", false},
		{"+Inf", false},
		{"-1764907200", false},
		{"0", false},
		{"1e300", false},
		{"99999999999999999999", false},
		{"1764907200 \x1b[2J", false},
		{strings.Repeat("1", 1<<20), false},
		{"", false},
	} {
		v, err := ParseClock("wl1", tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseClock(%.40q) = %v, %v; want ok=%v", tc.in, v, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "wl1") {
			t.Errorf("ParseClock(%.40q): error %q does not name the host", tc.in, err)
		}
	}
	for _, kv := range []map[string]string{
		{"fio_read_iops": "NaN", "fio_write_iops": "1", "fio_read_kib": "1", "fio_write_kib": "1"},
		{"fio_read_iops": "1", "fio_write_iops": "+Inf", "fio_read_kib": "1", "fio_write_kib": "1"},
		{"fio_read_iops": "1", "fio_write_iops": "1", "fio_read_kib": "1e300", "fio_write_kib": "1"},
	} {
		if f, err := FioFromKV("db1", "/data", "256M", time.Second, kv); err == nil {
			t.Errorf("FioFromKV(%v) = %+v, want refused", kv, f)
		}
	}
}

func FuzzParseClock(f *testing.F) {
	for _, s := range []string{"1764907200.123456789\n", "NaN", "1e300", "-5", "0.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseClock("h", s)
		if err != nil {
			return
		}
		if !(v > 0 && v < maxClockUnix) {
			t.Fatalf("accepted %q as %v", s, v)
		}
		sent := time.Unix(1764907200, 0)
		ch := NewClockHost("h", sent, sent.Add(time.Millisecond), v)
		if math.IsNaN(ch.OffsetMs) || math.IsInf(ch.OffsetMs, 0) {
			t.Fatalf("offset of %q is %v", s, ch.OffsetMs)
		}
	})
}

func FuzzFioFromKV(f *testing.F) {
	f.Add("fio_read_iops=1\nfio_write_iops=2\nfio_read_kib=3\nfio_write_kib=4\n")
	f.Add("fio_read_iops=NaN\nfio_write_iops=2\nfio_read_kib=3\nfio_write_kib=4\n")
	f.Add("fio=skipped\n")
	f.Fuzz(func(t *testing.T, out string) {
		r, err := FioFromKV("h", "/d", "1M", time.Second, ParseKV(out))
		if err != nil {
			return
		}
		for _, v := range []float64{r.ReadIOPS, r.WriteIOPS, r.ReadKiBps, r.WriteKiBps} {
			if math.IsNaN(v) || v < 0 || v > maxFioFigure {
				t.Fatalf("accepted figure %v from %q", v, out)
			}
		}
	})
}
