package plan

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestExpandPattern(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
		n    int // when want is nil: the number of values
		err  string
	}{
		// A plain value stands for itself.
		{in: "crdb1", want: []string{"crdb1"}},
		// The lower bound's width is kept (pdsh/Slurm host lists).
		{in: "node[08-11]", want: []string{"node08", "node09", "node10", "node11"}},
		{in: "10.0.1.[9-11]", want: []string{"10.0.1.9", "10.0.1.10", "10.0.1.11"}},
		// Lists and ranges mix; groups multiply left to right.
		{in: "r[1,3-4]", want: []string{"r1", "r3", "r4"}},
		{in: "z[1-2]-n[1-2]", want: []string{"z1-n1", "z1-n2", "z2-n1", "z2-n2"}},
		{in: "[0-2]", want: []string{"0", "1", "2"}},
		{in: "n[1-", err: "without ']'"},
		{in: "n]", err: "without '['"},
		{in: "n[a-b]", err: "not a number"},
		{in: "n[5-1]", err: "backwards"},
		{in: "n[1-9999999]", err: "more than 10000"},
		{in: "n[0-9999]x[0-9999]", err: "more than 10000"},
		{in: "n[0-99]x[0-99]", n: 10000},
	} {
		got, err := expandPattern(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: want error %q, got %v %v", tt.in, tt.err, got, err)
			}
			continue
		}
		if tt.n > 0 {
			if err != nil || len(got) != tt.n {
				t.Errorf("%q: %d values, %v; want %d", tt.in, len(got), err, tt.n)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// TestPartitionAffinity: the 100k recipe's five sets, from p mod 5.
func TestPartitionAffinity(t *testing.T) {
	withLicense(t)
	p, err := LoadPlan("../../plans/tpcc-100k.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"[0 5 10 15 20 25]", "[1 6 11 16 21 26]", "[2 7 12 17 22]", "[3 8 13 18 23]", "[4 9 14 19 24]"}
	for i, h := range p.Workload {
		if got := fmt.Sprint(h.Partitions); got != want[i] {
			t.Errorf("%s: partitions %s, want %s", h.Name, got, want[i])
		}
	}
	racks := map[int]int{}
	for _, n := range p.Nodes {
		racks[n.Rack]++
	}
	if len(racks) != 27 {
		t.Errorf("%d racks, want 27", len(racks))
	}
	for r, n := range racks {
		if n != 3 {
			t.Errorf("rack %d has %d nodes, want 3", r, n)
		}
	}
}

// TestRacksRoundRobin: racks: R puts host k of the spec in rack k % R
// (roachprod's --racks), which workload's URL j -> partition j % P
// mapping relies on; a pinned rack still wins.
func TestRacksRoundRobin(t *testing.T) {
	withLicense(t)
	p, err := LoadPlan("../../plans/tpcc-100k.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"crdb01": 0, "crdb02": 1, "crdb27": 26, "crdb28": 0, "crdb29": 1, "crdb81": 26}
	for _, n := range p.Nodes {
		if r, ok := want[n.Name]; ok && n.Rack != r {
			t.Errorf("%s in rack %d, want %d", n.Name, n.Rack, r)
		}
	}
	for i, n := range p.Nodes {
		if n.Rack != i%27 {
			t.Fatalf("node %d (%s) in rack %d, want %d", i, n.Name, n.Rack, i%27)
		}
	}
	pinned, err := ParsePlan("t.yaml", []byte(planText(Cockroach, "  - name: n[1-3]\n    addr: 10.0.0.[1-3]\n",
		"  - {name: n1, addr: 10.0.0.1, rack: \"1\"}\n  - {name: n2, addr: 10.0.0.2, rack: \"0\"}\n  - {name: n3, addr: 10.0.0.3, rack: \"1\"}\n")))
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, n := range pinned.Nodes {
		got = append(got, n.Rack)
	}
	if fmt.Sprint(got) != "[1 0 1]" {
		t.Errorf("pinned racks %v, want [1 0 1]", got)
	}
}

// TestMatchHostWord: the hand-written matcher agrees with the pattern it
// stands for.
func TestMatchHostWord(t *testing.T) {
	hostWord := regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._:-]*[A-Za-z0-9])?$`)
	for _, s := range []string{"", "a", "a.b", "node-01", "-a", "a-", "a..b", "a_b", "a:b", "a b", "é", "10.0.0.1", "a.", ".a", "ab", "a$b"} {
		if got, want := matchHostWord(s), hostWord.MatchString(s); got != want {
			t.Errorf("%q: %v, hostWord says %v", s, got, want)
		}
	}
}
