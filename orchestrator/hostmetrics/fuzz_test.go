package hostmetrics

import (
	"bytes"
	"os"
	"testing"
)

func seed(f *testing.F, files ...string) {
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(""))
	f.Add([]byte("cpu 1 2\n"))
}

// The /proc parsers take whatever a kernel (or a broken container) gives:
// they must never panic.
func FuzzParseStat(f *testing.F) {
	seed(f, "testdata/proc1/stat", "/proc/stat")
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseStat(data)
		if err == nil && c.cpus < 0 {
			t.Fatal("negative CPU count")
		}
	})
}

func FuzzParseMeminfo(f *testing.F) {
	seed(f, "testdata/proc1/meminfo", "/proc/meminfo")
	f.Fuzz(func(t *testing.T, data []byte) { parseMeminfo(data) })
}

func FuzzParseDiskstats(f *testing.F) {
	seed(f, "testdata/proc1/diskstats", "/proc/diskstats")
	f.Fuzz(func(t *testing.T, data []byte) { parseDiskstats(data, func(string) bool { return true }) })
}

func FuzzParseNetDev(f *testing.F) {
	seed(f, "testdata/proc1/net/dev", "/proc/net/dev")
	f.Fuzz(func(t *testing.T, data []byte) { parseNetDev(data) })
}

func FuzzRead(f *testing.F) {
	seed(f, "testdata/pg1.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) { Read(bytes.NewReader(data)) })
}
