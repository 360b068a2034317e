package crdb

import "testing"

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]Version{"v20.1": {20, 1}, "20.2.3": {20, 2}, "v25.1.0-beta.2": {25, 1},
		"v19.2.12": {19, 2}, " v23.1.11 ": {23, 1}} {
		if got, err := ParseVersion(in); err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "v20", "x.y", "v20.10", "v0.1", "20.-1"} {
		if _, err := ParseVersion(in); err == nil {
			t.Errorf("ParseVersion(%q) succeeded", in)
		}
	}
	if (Version{20, 1}).Generator() != "2.1.0" || (Version{20, 2}).Generator() != "2.2.0" {
		t.Error("generator versions")
	}
	if NodeCountQuery(Version{20, 1}) != `SELECT count(node_id) FROM "".crdb_internal.gossip_liveness` {
		t.Error("node count query")
	}
}

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"v20.1", "v25.1.0-beta.2", "20.2.3", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVersion(s)
		if err == nil {
			if v2, err := ParseVersion(v.String()); err != nil || v2 != v {
				t.Errorf("%q -> %v does not round-trip", s, v)
			}
		}
	})
}

func TestParseBuild(t *testing.T) {
	for in, want := range map[string]Build{
		"v20.1.17": {Version{20, 1}, 17}, "20.1.8": {Version{20, 1}, 8}, "v20.1": {Version{20, 1}, -1},
		"v25.1.0-beta.2": {Version{25, 1}, 0}, " v23.1.11 ": {Version{23, 1}, 11}, "v20.1.0": {Version{20, 1}, 0},
	} {
		got, err := ParseBuild(in)
		if err != nil || got != want {
			t.Errorf("ParseBuild(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "v20", "v20.1.x", "v20.1.-1", "v20.1.1000", "v20.1.08", "v20.10.1"} {
		if b, err := ParseBuild(in); err == nil {
			t.Errorf("ParseBuild(%q) = %v", in, b)
		}
	}
	if (Build{}).Given() || !(BuildOf(Version{20, 1})).Given() || BuildOf(Version{20, 1}).PatchKnown() {
		t.Error("Given/PatchKnown")
	}
}

func FuzzParseBuild(f *testing.F) {
	for _, s := range []string{"v20.1.17", "v20.1", "v25.1.0-beta.2", "20.2.3", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBuild(s)
		if err == nil {
			if b2, err := ParseBuild(b.String()); err != nil || b2 != b {
				t.Errorf("%q -> %v does not round-trip", s, b)
			}
			_ = b.Release()
		}
	})
}

func TestGeneratorVersion(t *testing.T) {
	for in, want := range map[string]string{
		"v19.2.6": Generator21, "v20.1.17": Generator21, "20.1.0": Generator21, "v20.2.0": Generator22, "v23.1.11": Generator22,
		"CockroachDB CCL v20.1.17 (x86_64-unknown-linux-gnu, built 2021/05/17 16:30:22, go1.13.9)": Generator21,
		"CockroachDB CCL v21.2.3 (x86_64-unknown-linux-gnu, built 2021/12/14 15:23:17, go1.16.6)":  Generator22,
	} {
		if got, err := GeneratorVersion(in); err != nil || got != want {
			t.Errorf("GeneratorVersion(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := GeneratorVersion("latest"); err == nil {
		t.Error("no version accepted")
	}
}

// FuzzGeneratorVersion: any input gives one of the two versions or an
// error, never a panic; a version string's own MAJOR.MINOR decides.
func FuzzGeneratorVersion(f *testing.F) {
	for _, s := range []string{"v20.1.17", "v20.2.0", "CockroachDB CCL v21.2.3 (x86_64)", "", "v", "99999999999999999999.1", "v20.", "1.2.3.4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := GeneratorVersion(s)
		if err == nil && v != Generator21 && v != Generator22 {
			t.Errorf("GeneratorVersion(%q) = %q", s, v)
		}
		if err != nil && v != "" {
			t.Errorf("GeneratorVersion(%q) = %q with error %v", s, v, err)
		}
	})
}
