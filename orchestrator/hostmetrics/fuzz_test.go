package hostmetrics

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
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

// fakeProc writes a /proc tree: proc1's files with the named ones
// replaced (a nil content removes the file).
func fakeProc(t testing.TB, replace map[string][]byte) string {
	dir := t.TempDir()
	for _, name := range []string{"stat", "meminfo", "loadavg", "diskstats", "net/dev"} {
		data, err := os.ReadFile(filepath.Join("testdata/proc1", name))
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := replace[name]; ok {
			data = r
		}
		if data == nil {
			continue
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Whatever a kernel (or a broken container) puts in /proc, the sampler
// reports an error or a snapshot whose figures JSON can carry, never a
// wrapped counter; each row can fail on its own.
func TestReadBrokenProc(t *testing.T) {
	sys := fakeSys(t)
	for _, tc := range []struct {
		name, file, content string
		wantErr             string // "" means the snapshot is read
		check               func(snapshot) bool
	}{
		{"no stat", "stat", "\x00", "stat", nil},
		{"no cpu line", "stat", "intr 1\nctxt 2\n", "no cpu line", nil},
		{"bad cpu field", "stat", "cpu 1 x 3 4 5 6 7 8\n", "stat", nil},
		{"negative ticks", "stat", "cpu -5 0 0 0 0 0 0 0\n", "not a tick count", nil},
		{"NaN ticks", "stat", "cpu NaN 0 0 0 0 0 0 0\n", "not a tick count", nil},
		{"huge ticks", "stat", "cpu 1e300 0 0 0 0 0 0 0\n", "not a tick count", nil},
		{"no meminfo", "meminfo", "\x00", "meminfo", nil},
		{"no MemTotal", "meminfo", "MemFree: 5 kB\n", "no MemTotal", nil},
		{"MemTotal wraps in bytes", "meminfo", "MemTotal: 18014398509481985 kB\n", "no MemTotal", nil},
		{"bad meminfo line", "meminfo", "MemTotal: 1 kB\nBogus: 1 MB\n", "meminfo", nil},
		{"no loadavg", "loadavg", "\x00", "", func(s snapshot) bool { return s.load == 0 && s.mem.total == 8000000*1024 }},
		{"NaN loadavg", "loadavg", "NaN 1 1 1/1 1\n", "", func(s snapshot) bool { return s.load == 0 }},
		{"negative loadavg", "loadavg", "-1 1 1 1/1 1\n", "", func(s snapshot) bool { return s.load == 0 }},
		{"bad diskstats", "diskstats", " 253 0 vda x 1 2 3 4 5 6 7 8 9 10 11\n", "", func(s snapshot) bool { return len(s.disks) == 0 }},
		{"short diskstats line", "diskstats", " 253 0 vda 1 2 3\n", "", func(s snapshot) bool { return len(s.disks) == 0 }},
		{"no diskstats", "diskstats", "\x00", "", func(s snapshot) bool { return len(s.disks) == 0 }},
		{"bad net/dev", "net/dev", "h1\nh2\n  eth0: 1 2 3\n", "", func(s snapshot) bool { return len(s.net) == 0 }},
		{"no net/dev", "net/dev", "\x00", "", func(s snapshot) bool { return len(s.net) == 0 }},
		{"proc1 as is", "", "", "", func(s snapshot) bool {
			return s.cpu == cpuTimes{user: 1000, nice: 100, system: 500, idle: 8000, iowait: 200, irq: 10, softirq: 40, steal: 150, cpus: 2} &&
				s.load == 0.5 && len(s.disks) == 1 && s.disks["vda"].ioMillis == 3000 && len(s.net) == 1 && s.net["eth0"].txBytes == 200000
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			replace := map[string][]byte{}
			if tc.file != "" {
				replace[tc.file] = []byte(tc.content)
				if tc.content == "\x00" {
					replace[tc.file] = nil // the file is absent
				}
			}
			snap, err := (&Sampler{Proc: fakeProc(t, replace), Sys: sys}).read()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !tc.check(snap) {
				t.Fatalf("snapshot %+v, err %v", snap, err)
			}
		})
	}
}

// procfs hands CPU times over in seconds (ticks / 100); the sampler
// must get the kernel's integers back exactly, large ones too.
func TestTicksRoundTrip(t *testing.T) {
	for _, n := range []uint64{0, 1, 3, 99, 101, 12345, 987654321, 1<<40 + 7, 1<<50 + 3} {
		// The same division procfs does (stat.go parseCPUStat).
		if got, ok := ticks(float64(n) / procfsUserHZ); !ok || got != n {
			t.Errorf("ticks(%d/100) = %d %v", n, got, ok)
		}
	}
	for _, bad := range []float64{-0.01, math.NaN(), math.Inf(1), math.Inf(-1), 1e300} {
		if _, ok := ticks(bad); ok {
			t.Errorf("ticks(%v) accepted", bad)
		}
	}
	// Through procfs itself: a counter near 2^50 ticks is read exactly.
	dir := fakeProc(t, map[string][]byte{"stat": []byte("cpu 1125899906842627 0 0 7 0 0 0 0 0 0\ncpu0 1 0 0 0 0 0 0 0 0 0\n")})
	snap, err := (&Sampler{Proc: dir, Sys: fakeSys(t)}).read()
	if err != nil || snap.cpu.user != 1125899906842627 || snap.cpu.idle != 7 || snap.cpu.cpus != 1 {
		t.Fatalf("cpu = %+v, %v", snap.cpu, err)
	}
}

// The kernel's files are parsed by procfs; what is ours is the step from
// its values to ours (ticks, byte bounds, absent files). Each fuzzed
// file of a fake /proc tree must give an error or a snapshot whose
// sample JSON can encode: never a panic, NaN or wrapped counter.
func FuzzSamplerRead(f *testing.F) {
	for _, p := range []string{"testdata/proc1/stat", "testdata/proc1/meminfo", "testdata/proc1/loadavg",
		"testdata/proc1/diskstats", "testdata/proc1/net/dev", "/proc/stat", "/proc/meminfo"} {
		if data, err := os.ReadFile(p); err == nil {
			for i := range uint8(5) {
				f.Add(i, data)
			}
		}
	}
	f.Add(uint8(0), []byte("cpu NaN 1 2\n"))
	f.Add(uint8(1), []byte("MemTotal: 18446744073709551615 kB\n"))
	f.Add(uint8(2), []byte("+Inf 1 1 1/1 1\n"))
	files := []string{"stat", "meminfo", "loadavg", "diskstats", "net/dev"}
	sys := fakeSys(f)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		name := files[int(which)%len(files)]
		s := &Sampler{Proc: fakeProc(t, map[string][]byte{name: data}), Sys: sys}
		a, err := s.read()
		if err != nil {
			return
		}
		if a.mem.total == 0 || a.cpu.cpus < 0 {
			t.Fatalf("snapshot without memory or with negative CPUs: %+v", a)
		}
		b := a
		b.at = a.at.Add(1e9)
		if err := json.NewEncoder(io.Discard).Encode(diff("h", a, b)); err != nil {
			t.Fatalf("sample cannot be encoded: %v", err)
		}
	})
}

func FuzzRead(f *testing.F) {
	seed(f, "testdata/pg1.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) { Read(bytes.NewReader(data)) })
}
