package plan

import (
	"fmt"

	"github.com/benchrig/benchrig/crdb"
)

// What a CockroachDB release accepts of a plan, beyond the workload's
// own flags (fidelity.go): the cluster settings it still has, and the
// licence it needs. The plan asks the release (crdb.Release:
// RetiredSetting, License) and compares no version; the facts
// and their sources are in package crdb (docs/fidelity/v25.4.md cites
// them).

// validateRelease checks the plan against its CockroachDB release: no
// setting that release no longer has, and a licence where the release
// needs one. Without a known release there is nothing to check.
func validateRelease(ps *problems, p *Plan) {
	if g := p.Settings.GCTTLSeconds; g != 0 {
		if p.Flavor != Cockroach {
			ps.at(p.node(&p.Settings.GCTTLSeconds), "settings.gc_ttl_seconds: a CockroachDB zone setting")
		}
		// gc.ttlseconds is an int32 of seconds, at least 1.
		checkRange(ps, p.nodeOr(&p.Settings.GCTTLSeconds), "settings.gc_ttl_seconds", g, 1, 1<<31-1)
	}
	rel, ok := p.Release()
	if !ok || p.Flavor != Cockroach {
		return
	}
	v := rel.Build.Version
	s := &p.Settings
	planned := map[string]bool{}
	for i := 0; s.Cluster.Kind != 0 && i+1 < len(s.Cluster.Content); i += 2 {
		k := s.Cluster.Content[i]
		planned[k.Value] = true
		if r, gone := rel.RetiredSetting(k.Value); gone {
			ps.at(k, "settings.cluster.%s: retired in CockroachDB %s (pkg/settings/registry.go retiredSettings); the plan's release %s refuses it as an unknown cluster setting", k.Value, r, v)
		}
	}
	for _, kv := range s.Ordered() {
		if planned[kv.Name] {
			continue
		}
		if r, gone := rel.RetiredSetting(kv.Name); gone {
			ps.at(p.node(&s.Preset), "settings.preset: %s sets %s, retired in CockroachDB %s (pkg/settings/registry.go retiredSettings); the plan's release %s refuses it as an unknown cluster setting", s.Preset, kv.Name, r, v)
		}
	}
	if p.License == nil && rel.License == crdb.LicenseForPartitioning && p.TPCC.Partitions > 1 {
		ps.at(p.nodeOr(&p.TPCC.Partitions), "license: CockroachDB %s's partitioning is an enterprise feature (a licence is optional from %s); give license: {organization, key: {env: VAR}}", v, crdb.LicenseOptionalFrom)
	}
}

// LicenseNote is what a plan without a licence should know, or "": from
// v24.3 a licence is optional, and an unlicensed multi-node cluster runs
// 7 days from init before it is throttled to 5 concurrent open
// transactions (the v25.4 Small and Local pages set none).
//
// fidelity:v25.4/15
func (p *Plan) LicenseNote() string {
	rel, ok := p.Release()
	if !ok || p.Flavor != Cockroach || p.License != nil || rel.License != crdb.LicenseOptional || len(p.Nodes) < 2 {
		return ""
	}
	return fmt.Sprintf("no licence: CockroachDB %s runs an unlicensed %d-node cluster for %d days from init, then throttles it to 5 concurrent open transactions; give license: for a cluster kept longer",
		rel.Build, len(p.Nodes), crdb.UnlicensedGraceDays)
}
