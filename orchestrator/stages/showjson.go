package stages

import (
	"encoding/json"
	"io"

	"github.com/benchrig/benchrig/orchestrator/plan"
)

// PlanSchema versions `benchrig plan show --json`.
const PlanSchema = "benchrig.plan/v1"

// PlanView is the expanded plan as `plan show --json` prints it
// (docs/schema/plan.v1.json): what Show prints, as data. Secrets appear
// only as their references.
type PlanView struct {
	Schema      string           `json:"schema"`
	Name        string           `json:"name"`
	Flavor      string           `json:"flavor"`
	Description string           `json:"description,omitempty"`
	Benchmark   string           `json:"benchmark"`
	Racks       int              `json:"racks"`
	Nodes       []HostView       `json:"nodes"`
	Workload    []HostView       `json:"workload"`
	TPCC        TPCCView         `json:"tpcc"`
	Settings    []SettingView    `json:"settings,omitempty"`
	License     string           `json:"license,omitempty"`
	Stages      []string         `json:"stages"`
	URLs        []string         `json:"urls"`
	Thresholds  *plan.Thresholds `json:"thresholds,omitempty"`
	// Published is the recipe page's own result (plan published:).
	Published *plan.PublishedView `json:"published,omitempty"`
}

// HostView is one expanded host.
type HostView struct {
	Name       string `json:"name"`
	SSH        string `json:"ssh"` // [user@]host[:port] dialled
	Addr       string `json:"addr,omitempty"`
	Rack       *int   `json:"rack,omitempty"`
	SQLPort    int    `json:"sql_port,omitempty"`
	HTTPPort   int    `json:"http_port,omitempty"`
	Store      string `json:"store,omitempty"`
	Dir        string `json:"dir"`
	Partitions []int  `json:"partitions,omitempty"`
}

// SettingView is one setting the configure stage applies.
type SettingView struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// TPCCView are the benchmark's parameters.
type TPCCView struct {
	Warehouses       int    `json:"warehouses"`
	ActiveWarehouses int    `json:"active_warehouses,omitempty"`
	Partitions       int    `json:"partitions,omitempty"`
	Ramp             string `json:"ramp"`
	Duration         string `json:"duration"`
	Repeat           int    `json:"repeat,omitempty"`
	Ulimit           int    `json:"ulimit,omitempty"`
}

// ShowJSON writes the plan as one JSON document.
func ShowJSON(w io.Writer, p *plan.Plan) error {
	v := PlanView{Schema: PlanSchema, Name: p.Name, Flavor: p.Flavor, Description: p.Description, Benchmark: p.Benchmark,
		Racks: p.Racks(), Nodes: []HostView{}, Workload: []HostView{}, Stages: p.Stages, Thresholds: p.Thresholds, Published: p.Published.View(),
		TPCC: TPCCView{Warehouses: p.TPCC.Warehouses, ActiveWarehouses: p.TPCC.ActiveWarehouses, Partitions: p.TPCC.Partitions,
			Ramp: p.TPCC.Ramp.String(), Duration: p.TPCC.Duration.String(), Repeat: p.TPCC.Repeat, Ulimit: p.TPCC.Ulimit}}
	for _, h := range p.Nodes {
		hv := HostView{Name: h.Name, SSH: sshAddr(h), Addr: h.Addr, SQLPort: h.SQLPort, HTTPPort: h.HTTPPort, Store: h.Store, Dir: h.Dir}
		if h.Rack >= 0 {
			r := h.Rack
			hv.Rack = &r
		}
		v.Nodes = append(v.Nodes, hv)
	}
	for _, h := range p.Workload {
		v.Workload = append(v.Workload, HostView{Name: h.Name, SSH: sshAddr(h), Dir: h.Dir, Partitions: h.Partitions})
	}
	for _, s := range p.Settings.Ordered() {
		v.Settings = append(v.Settings, SettingView{Name: s.Name, Value: s.Value})
	}
	if p.License != nil {
		v.License = "organization " + p.License.Organization + ", key from " + p.License.Key.String()
	}
	var f flavor = cockroachFlavor{p}
	if p.Flavor == plan.Postgres {
		f = postgresFlavor{p: p}
	}
	v.URLs = f.urls()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
