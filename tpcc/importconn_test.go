package tpcc

import "testing"

func TestParseGeneratorFlags(t *testing.T) {
	v, err := ParseGeneratorFlags("--families=false, regions=[]")
	if err != nil || v.Get("families") != "false" || v.Get("regions") != "[]" {
		t.Errorf("%v %v", v, err)
	}
	if _, err := ParseGeneratorFlags("novalue"); err == nil {
		t.Error("k without =v accepted")
	}
}

func FuzzParseGeneratorFlags(f *testing.F) {
	f.Add("--families=false, regions=[]")
	f.Add("a=b=c,d=")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseGeneratorFlags(s)
		if err != nil {
			return
		}
		for k := range v {
			if k == "" {
				t.Errorf("%q: empty key", s)
			}
		}
	})
}
