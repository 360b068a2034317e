package plan

import "time"

// Preflight holds the plan's preflight limits.
type Preflight struct {
	// FioSize and FioRuntime bound the disk benchmark of each node's store
	// path ("0" skips it); it runs only where fio is installed.
	FioSize    string   `yaml:"fio_size"`
	FioRuntime Duration `yaml:"fio_runtime"`
	// MinFreeGB is the free space the store path needs.
	MinFreeGB float64 `yaml:"min_free_gb"`
	// MaxClockOffset fails a host whose clock is further off ours (the
	// common start instant relies on the clocks).
	MaxClockOffset Duration `yaml:"max_clock_offset"`
	// MinReadIOPS flags (does not fail) a disk slower than this under the
	// 4k random 75/25 mix: network-attached or HDD-class storage.
	MinReadIOPS float64 `yaml:"min_read_iops"`
}

func (pf *Preflight) defaults() {
	if pf.FioSize == "" {
		pf.FioSize = "256M"
	}
	if pf.FioRuntime == 0 {
		pf.FioRuntime = Duration(10 * time.Second)
	}
	if pf.MinFreeGB == 0 {
		pf.MinFreeGB = 1
	}
	if pf.MaxClockOffset == 0 {
		pf.MaxClockOffset = Duration(time.Second)
	}
	if pf.MinReadIOPS == 0 {
		// The seed's measurements: local NVMe 40-60k read IOPS, SATA SSD
		// ~18k, a throttled "SSD" VPS ~3k, HDD a few hundred.
		pf.MinReadIOPS = 5000
	}
}
