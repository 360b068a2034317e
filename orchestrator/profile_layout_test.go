package orchestrator

import (
	"slices"
	"sort"
	"strings"
	"testing"
)

// profileChooser is the load profiles' composition point: the one package
// that imports them (tpcc/profile.Choose turns a profile's name into the
// value tpcc.Run drives).
const profileChooser = "tpcc/profile"

func isLoadProfile(p string) bool { return strings.HasPrefix(p, profileChooser+"/") }

// TestLoadProfilesSitAboveTheBenchmark keeps the driver's arrows pointing
// down: the load profiles (tpcc/profile/...) import the benchmark, tpcc,
// never the other way: tpcc and every package it depends on import no
// profile and not the chooser, directly or through another package. A
// profile imports no other profile, and only the chooser imports a
// profile, so a run's profile is chosen in one place and reaches the
// benchmark as a value (tpcc.LoadProfile).
func TestLoadProfilesSitAboveTheBenchmark(t *testing.T) {
	pkgs := modulePackages(t, "..")
	var profiles []string
	for p := range pkgs {
		if isLoadProfile(p) {
			profiles = append(profiles, p)
		}
	}
	sort.Strings(profiles)
	if len(profiles) == 0 {
		t.Fatalf("no load profile under %s/", profileChooser)
	}
	if _, ok := pkgs[profileChooser]; !ok {
		t.Fatalf("no package %s (the profiles' chooser) in the module", profileChooser)
	}
	if _, ok := pkgs["tpcc"]; !ok {
		t.Fatal("no package tpcc in the module")
	}
	seen := map[string]bool{"tpcc": true}
	var walk func(p string, path []string)
	walk = func(p string, path []string) {
		for _, imp := range pkgs[p] {
			if imp == profileChooser || isLoadProfile(imp) {
				t.Errorf("the benchmark depends on a load profile: %s (a profile is a tpcc.LoadProfile value given to Run)", strings.Join(append(path, imp), " -> "))
				continue
			}
			if !seen[imp] {
				seen[imp] = true
				walk(imp, append(path[:len(path):len(path)], imp))
			}
		}
	}
	walk("tpcc", []string{"tpcc"})
	for p, imps := range pkgs {
		for _, imp := range imps {
			if isLoadProfile(imp) && p != profileChooser {
				t.Errorf("%s imports the load profile %s: only %s chooses a profile (profiles: %v)", p, imp, profileChooser, profiles)
			}
		}
	}
	for _, p := range profiles {
		if !slices.Contains(pkgs[p], "tpcc") {
			t.Errorf("%s does not import tpcc: a load profile implements tpcc.LoadProfile", p)
		}
	}
}
