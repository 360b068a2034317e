package plan

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Pos is a place in a plan file.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Problem is one thing wrong with a plan, at a place in its file.
type Problem struct {
	Pos Pos
	Msg string
}

func (p Problem) String() string { return p.Pos.String() + ": " + p.Msg }

// PlanError lists every problem found in a plan, in file order. The
// decoder and the validator collect all of them instead of stopping at
// the first, so one edit-and-retry cycle fixes a plan.
type PlanError struct {
	File     string
	Problems []Problem
}

func (e *PlanError) Error() string {
	var b strings.Builder
	if len(e.Problems) == 1 {
		b.WriteString("invalid plan: ")
	} else {
		fmt.Fprintf(&b, "invalid plan (%d problems):", len(e.Problems))
	}
	for i, p := range e.Problems {
		if len(e.Problems) > 1 || i > 0 {
			b.WriteString("\n  ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// problems gathers Problems; positions come from the YAML nodes.
type problems struct {
	file string
	list []Problem
	// aliasVisits counts the YAML nodes decodeStrict has entered through
	// an alias: a small file can stand for a huge tree that way (a list
	// of a thousand aliases of a list of a thousand numbers), which is
	// refused past maxAliasVisits. What is written out is bounded by
	// MaxPlanSize already.
	aliasVisits int
	aliasBytes  int
	aliasDepth  int
	tooBig      bool
	dropped     int // problems past maxProblems, counted
	// allow holds the denied settings the command line allows
	// (Options.AllowSettings).
	allow map[string]bool
	// unresolved: the secrets are not read (Options.Unresolved).
	unresolved bool
}

// maxAliasVisits bounds what aliases may add to a plan: shared host
// settings or lists, not a second plan's worth. maxAliasBytes bounds the
// text they repeat the same way (a 4 KiB string aliased 100,000 times is
// 400 MB of argv once compiled).
const (
	maxAliasVisits = 100_000
	maxAliasBytes  = MaxPlanSize
)

// Bounds on plan strings: a value longer than any real one is a mistake or
// an attack (argv over 128 KiB fails exec on every attempt, resume
// included). Free text (the description) may be longer.
const (
	maxStringLen      = 4096
	maxDescriptionLen = 64 << 10
)

// overBudget counts n more nodes decoded through an alias and says
// (once, at at) when the budget is spent.
func (ps *problems) overBudget(at *yaml.Node, where string, n int) bool {
	if ps.aliasDepth == 0 {
		return false
	}
	if ps.aliasVisits += n; ps.aliasVisits <= maxAliasVisits {
		return false
	}
	if !ps.tooBig {
		ps.tooBig = true
		ps.at(at, "%s: aliases expand the plan by more than %d values", where, maxAliasVisits)
	}
	return true
}

// maxProblems bounds the problems kept: a plan of ten thousand aliased
// bad hosts needs its first few fixed, not a list that size.
const maxProblems = 500

func (ps *problems) at(n *yaml.Node, format string, args ...any) {
	if len(ps.list) >= maxProblems {
		ps.dropped++
		return
	}
	pos := Pos{File: ps.file}
	if n != nil {
		pos.Line, pos.Col = n.Line, n.Column
	}
	ps.list = append(ps.list, Problem{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

func (ps *problems) err() error {
	if len(ps.list) == 0 {
		return nil
	}
	// A value that failed to decode is left zero; what validation then
	// says about the same place adds nothing.
	seen := map[Problem]bool{}
	kept := ps.list[:0]
	for _, p := range ps.list {
		if !seen[p] {
			seen[p] = true
			kept = append(kept, p)
		}
	}
	ps.list = kept
	sort.SliceStable(ps.list, func(i, j int) bool {
		a, b := ps.list[i].Pos, ps.list[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	if ps.dropped > 0 {
		ps.list = append(ps.list, Problem{Pos: Pos{File: ps.file}, Msg: fmt.Sprintf("and %d more problems", ps.dropped)})
	}
	return &PlanError{File: ps.file, Problems: ps.list}
}

// Duration is a time.Duration written as "30m", "1ms", "1h30m" in YAML.
type Duration time.Duration

// Std returns the value as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String is the recipe's way of writing the duration ("30m", "1ms").
func (d Duration) String() string { return FormatDuration(time.Duration(d)) }

// FormatDuration writes d the way the recipes do: "30m", not "30m0s".
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// nodeOf keeps the YAML node of every decoded field by its path in the
// plan ("tpcc.warehouses", "nodes[0].name"), so that the validator can
// point at the line a semantic problem comes from. Paths, not addresses:
// Normalize returns a new plan, and its fields must find their lines too.
type nodeOf map[string]*yaml.Node

// fieldPaths maps the address of every field of one plan value (as a
// typed pointer, so a struct and its first field differ) to its path.
type fieldPaths map[any]string

// indexFields records the path of every field under v, named as
// decodeStrict names them.
func indexFields(v reflect.Value, path string, out fieldPaths) {
	if v.Kind() == reflect.Pointer {
		if !v.IsNil() {
			indexFields(v.Elem(), path, out)
		}
		return
	}
	if v.CanAddr() {
		out[v.Addr().Interface()] = path
	}
	if v.Type() == nodeType || v.Type() == durationType {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ",")
			if name != "" && name != "-" {
				indexFields(v.Field(i), join(path, name), out)
			}
		}
	case reflect.Slice:
		// Items that are plain values (partition numbers, flags) are
		// found through their list's node: indexing each would cost a
		// map entry per number of a long list.
		if !hasFields(v.Type().Elem()) {
			return
		}
		for i := 0; i < v.Len(); i++ {
			indexFields(v.Index(i), fmt.Sprintf("%s[%d]", path, i), out)
		}
	}
}

// hasFields says whether values of t have fields of their own to index.
func hasFields(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct && t != nodeType
}

var (
	durationType = reflect.TypeOf(Duration(0))
	// stdDurationType is read like Duration: types shared with packages
	// that take durations from flags (gate's latency limits) use it.
	stdDurationType = reflect.TypeOf(time.Duration(0))
	nodeType        = reflect.TypeOf(yaml.Node{})
)

// decodeStrict fills v (a pointer) from n like yaml.v3 would, but rejects
// unknown fields and reports every problem with its position instead of
// stopping at the first. Field names come from `yaml:"name"` tags.
func decodeStrict(ps *problems, n *yaml.Node, v reflect.Value, where string, pos nodeOf) {
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			ps.at(n, "the plan is empty")
			return
		}
		n = n.Content[0]
	}
	if n.Kind == yaml.AliasNode {
		at := n
		n = n.Alias
		if n == nil {
			return
		}
		ps.aliasDepth++
		defer func() { ps.aliasDepth-- }()
		if ps.overBudget(at, where, 1) {
			return
		}
	}
	if ps.tooBig {
		return
	}
	if n.Kind == yaml.ScalarNode && ps.aliasDepth > 0 {
		if ps.aliasBytes += len(n.Value); ps.aliasBytes > maxAliasBytes {
			ps.tooBig = true
			ps.at(n, "%s: aliases repeat more than %d bytes of text", where, maxAliasBytes)
			return
		}
	}
	if (n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode) && ps.overBudget(n, where, len(n.Content)) {
		return
	}
	if v.Kind() == reflect.Pointer {
		if n.Tag == "!!null" {
			return
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		decodeStrict(ps, n, v.Elem(), where, pos)
		return
	}
	if pos != nil {
		pos[where] = n
	}
	if v.Type() == nodeType {
		v.Set(reflect.ValueOf(*n))
		return
	}
	if v.Type() == durationType || v.Type() == stdDurationType {
		var s string
		if n.Kind != yaml.ScalarNode || n.Decode(&s) != nil {
			ps.at(n, "%s: want a duration such as 30m or 1ms", where)
			return
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			ps.at(n, "%s: %q is not a duration (want e.g. 90s, 30m, 1h, 1ms)", where, s)
			return
		}
		if d < 0 {
			ps.at(n, "%s: duration %s is negative", where, s)
			return
		}
		v.SetInt(int64(d))
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			ps.at(n, "%s: want a mapping, got %s", where, kindName(n))
			return
		}
		fields := map[string]int{}
		var known []string
		for i := 0; i < v.NumField(); i++ {
			tag := v.Type().Field(i).Tag.Get("yaml")
			name, _, _ := strings.Cut(tag, ",")
			if name == "" || name == "-" {
				continue
			}
			fields[name] = i
			known = append(known, name)
		}
		seen := map[string]bool{}
		for _, kv := range ps.pairs(n, where) {
			k, val := kv.k, kv.v
			idx, ok := fields[k.Value]
			if !ok {
				in := where
				if in == "" {
					in = "plan"
				}
				ps.at(k, "%s: unknown field %q%s", in, k.Value, suggest(k.Value, known))
				continue
			}
			if seen[k.Value] {
				ps.at(k, "%s: field %q given twice", where, k.Value)
				continue
			}
			seen[k.Value] = true
			ps.decodeMerged(kv, val, v.Field(idx), join(where, k.Value), pos)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			ps.at(n, "%s: want a list, got %s", where, kindName(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		itemPos := pos
		if !hasFields(v.Type().Elem()) {
			itemPos = nil // see indexFields
		}
		for i, item := range n.Content {
			if ps.tooBig {
				// The rest is not decoded: keep no empty items for the
				// checks after (10,000 empty hosts would each be looked at).
				s = s.Slice(0, i)
				break
			}
			decodeStrict(ps, item, s.Index(i), fmt.Sprintf("%s[%d]", where, i), itemPos)
		}
		v.Set(s)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			ps.at(n, "%s: want a mapping, got %s", where, kindName(n))
			return
		}
		m := reflect.MakeMap(v.Type())
		for _, kv := range ps.pairs(n, where) {
			k := reflect.New(v.Type().Key()).Elem()
			ps.decodeMerged(kv, kv.k, k, where, nil)
			val := reflect.New(v.Type().Elem()).Elem()
			ps.decodeMerged(kv, kv.v, val, join(where, kv.k.Value), pos)
			m.SetMapIndex(k, val)
		}
		v.Set(m)
	default:
		if n.Kind != yaml.ScalarNode {
			ps.at(n, "%s: want a %s, got %s", where, scalarName(v.Kind()), kindName(n))
			return
		}
		if v.Kind() == reflect.Bool {
			// YAML 1.1 "yes"/"on" are strings in yaml.v3; say so plainly.
			b, err := strconv.ParseBool(n.Value)
			if err != nil || n.Tag != "!!bool" {
				ps.at(n, "%s: want true or false, got %q", where, n.Value)
				return
			}
			v.SetBool(b)
			return
		}
		switch v.Kind() {
		case reflect.String:
			if n.Tag != "!!str" && n.Tag != "!!int" && n.Tag != "!!float" {
				ps.at(n, "%s: want a string, got %s", where, kindName(n))
				return
			}
			if msg := badText(n.Value, where == "description"); msg != "" {
				ps.at(n, "%s: %s", where, msg)
				return
			}
			if limit := stringLimit(where); len(n.Value) > limit {
				ps.at(n, "%s: %d bytes; at most %d", where, len(n.Value), limit)
				return
			}
		case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64, reflect.Uint32:
			// yaml.v3 would truncate 2.5 to 2; a count is a whole number.
			if n.Tag != "!!int" {
				ps.at(n, "%s: want a whole number, got %s", where, kindName(n))
				return
			}
			if msg := notDecimal(n); msg != "" {
				ps.at(n, "%s: %s", where, msg)
				return
			}
		case reflect.Float64, reflect.Float32:
			if n.Tag != "!!int" && n.Tag != "!!float" {
				ps.at(n, "%s: want a number, got %s", where, kindName(n))
				return
			}
			if msg := notDecimal(n); msg != "" {
				ps.at(n, "%s: %s", where, msg)
				return
			}
		}
		if err := n.Decode(v.Addr().Interface()); err != nil {
			ps.at(n, "%s: want a %s, got %q", where, scalarName(v.Kind()), n.Value)
			return
		}
		if v.Kind() == reflect.Float64 || v.Kind() == reflect.Float32 {
			if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
				ps.at(n, "%s: want a finite number, got %q", where, n.Value)
				v.SetFloat(0)
			}
		}
	}
}

func join(where, field string) string {
	if where == "" {
		return field
	}
	return where + "." + field
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing (null)"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

func scalarName(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64, reflect.Uint32:
		return "whole number"
	case reflect.Float64, reflect.Float32:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "true or false"
	}
	return k.String()
}

// suggest names the closest known field, for typos.
func suggest(got string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(got, k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return " (known: " + strings.Join(known, ", ") + ")"
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
