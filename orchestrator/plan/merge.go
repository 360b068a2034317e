package plan

import (
	"reflect"

	"go.yaml.in/yaml/v3"
)

// pair is one key: value of a mapping; merged says it came from a YAML
// merge key (<<: *alias), so its value counts against the alias budget.
type pair struct {
	k, v   *yaml.Node
	merged bool
}

// maxMergeDepth bounds merge keys inside merged mappings.
const maxMergeDepth = 8

// pairs lists a mapping's key/value pairs with YAML merge keys applied
// (<<: *a, or <<: [*a, *b]): the mapping's own keys first (duplicates
// kept, for the caller to refuse), then each merged mapping's keys that
// are not there yet, earlier merges first, as YAML 1.1 defines them. The
// merged result is then decoded as strictly as any mapping.
func (ps *problems) pairs(n *yaml.Node, where string) []pair {
	var own []pair
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		own = append(own, pair{k: k, v: v})
	}
	if len(merges) == 0 {
		return own
	}
	have := map[string]bool{}
	for _, kv := range own {
		have[kv.k.Value] = true
	}
	out := own
	var merge func(v *yaml.Node, depth int, inList bool)
	merge = func(v *yaml.Node, depth int, inList bool) {
		if ps.tooBig {
			return
		}
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			ps.aliasDepth++
			over := ps.overBudget(v, where, 1)
			ps.aliasDepth--
			if over {
				return
			}
			v = v.Alias
		}
		switch {
		case depth > maxMergeDepth:
			ps.at(v, "%s: merge keys nested more than %d deep", where, maxMergeDepth)
		case v.Kind == yaml.SequenceNode && !inList:
			for _, item := range v.Content {
				merge(item, depth, true)
			}
		case v.Kind == yaml.MappingNode:
			ps.aliasDepth++
			over := ps.overBudget(v, where, len(v.Content))
			ps.aliasDepth--
			if over {
				return
			}
			// A merged mapping's own merge keys apply to it first.
			for i := 0; i+1 < len(v.Content); i += 2 {
				k, val := v.Content[i], v.Content[i+1]
				if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
					continue
				}
				if !have[k.Value] {
					have[k.Value] = true
					out = append(out, pair{k: k, v: val, merged: true})
				}
			}
			for i := 0; i+1 < len(v.Content); i += 2 {
				if k := v.Content[i]; k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
					merge(v.Content[i+1], depth+1, false)
				}
			}
		default:
			ps.at(v, "%s: a merge key (<<) takes a mapping or a list of them, got %s", where, kindName(v))
		}
	}
	for _, m := range merges {
		merge(m, 0, false)
	}
	return out
}

// decodeMerged decodes a pair's value; a merged one is decoded as through
// an alias, since many mappings may merge the same one.
func (ps *problems) decodeMerged(kv pair, n *yaml.Node, v reflect.Value, where string, pos nodeOf) {
	if kv.merged {
		ps.aliasDepth++
		defer func() { ps.aliasDepth-- }()
	}
	decodeStrict(ps, n, v, where, pos)
}
