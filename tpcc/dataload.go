package tpcc

import "fmt"

// Loader is what generated a CockroachDB database's rows, which decides
// the C for C_LAST (clause 2.1.6) they were generated with.
type Loader int

const (
	// LoaderNodes: IMPORT from workload:// sources (fixtures import, or
	// benchrig's tpcc import issuing the same statements): every node
	// builds the generator from the source's flags and generates its
	// share without running the generator's Validate hook, where
	// workload draws C-Load, so C stays 0 (v20.1:
	// pkg/ccl/importccl/read_import_workload.go; docs/fidelity/v20.1.md
	// D29).
	LoaderNodes Loader = iota
	// LoaderClient: `workload init` (the INSERT loader): the client
	// generates after Validate, with the seed's C-Load.
	LoaderClient
	// LoaderBenchrig: benchrig's own loader (tpcc init and load), with
	// the seed's C-Load, stored in benchrig_meta.
	LoaderBenchrig
)

// DataGeneration says what a database's C_LAST values were generated
// with and, when the run's C-Run is known, whether the pair meets clause
// 2.1.6.1 (|C-Load - C-Run| in [65, 119], not 96 nor 112).
type DataGeneration struct {
	Loader string `json:"loader"`
	CLoad  int    `json:"c_load"`
	// CRun is the C the run draws C_LAST with; nil when benchrig picks
	// it at run time (the pipelined profile: a valid one against the
	// C-Load it assumes).
	CRun *int `json:"c_run,omitempty"`
	// Valid is clause 2.1.6.1's verdict on the pair (with CRun).
	Valid *bool  `json:"valid_delta,omitempty"`
	Note  string `json:"note"`
}

// DataCLoad is what loader l generates C_LAST with for generator seed
// seed (0: DefaultDataSeed, workload's default --seed).
func DataCLoad(l Loader, seed uint64) int {
	if seed == 0 {
		seed = DefaultDataSeed
	}
	if l == LoaderNodes {
		return 0
	}
	return WorkloadConstants(seed).CLast
}

// NewDataGeneration describes the data of loader l and a run whose C-Run
// is workload's (the seed's C-Load: CockroachDB's workload, or the
// workload profile) when workloadRun.
//
// fidelity:v20.1/D29
func NewDataGeneration(l Loader, seed uint64, workloadRun bool) DataGeneration {
	if seed == 0 {
		seed = DefaultDataSeed
	}
	d := DataGeneration{CLoad: DataCLoad(l, seed)}
	switch l {
	case LoaderNodes:
		d.Loader = "import"
		d.Note = "IMPORT from workload:// sources: the nodes generate the rows without the generator's Validate, so C_LAST's C is 0"
	case LoaderClient:
		d.Loader = "workload init"
		d.Note = fmt.Sprintf("workload init (INSERT): the client generates the rows with seed %d's C-Load", seed)
	default:
		d.Loader = "benchrig"
		d.Note = fmt.Sprintf("benchrig's loader: seed %d's C-Load, stored in benchrig_meta", seed)
	}
	if workloadRun {
		run := WorkloadConstants(seed).CLast
		ok := ValidCDelta(d.CLoad, run)
		d.CRun, d.Valid = &run, &ok
		verdict := "within"
		if !ok {
			verdict = "outside"
		}
		d.Note += fmt.Sprintf("; the run draws C_LAST with workload's C-Run %d (seed %d): delta %d, %s clause 2.1.6.1's 65..119 (not 96, 112)",
			run, seed, abs(d.CLoad-run), verdict)
	}
	return d
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
