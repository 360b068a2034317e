package tpcc

import "fmt"

// ImportSchema is workload's schema for the IMPORT statements: the
// CockroachDB dialect's table bodies and foreign keys of the generator
// version the cluster's release builds in (Version.Generator), with the
// FK indexes generator 2.1.0 had when fks is on. It is the same DDL `tpcc
// init` creates (schema.go), so an imported database and a loaded one
// have one layout.
func ImportSchema(v Version, fks bool) WorkloadSchema {
	return importSchema{gen: v.Generator(), fks: fks}
}

type importSchema struct {
	gen string
	fks bool
}

func (s importSchema) CreateBody(table string) (string, error) {
	t, ok := tableByName(table)
	if !ok {
		return "", fmt.Errorf("unknown tpcc table %q", table)
	}
	return "(\n" + t.body(Cockroach, s.gen, s.fks) + "\n)", nil
}

func (s importSchema) ForeignKeys() []string { return ForeignKeys(Cockroach, s.gen) }
