package probe

import (
	"testing"
	"time"
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
