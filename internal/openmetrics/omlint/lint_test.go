package omlint

import "testing"

// The checker must be able to fail: each exposition breaks one rule
// (the cases of the hand-written linter this package replaced, all kept).
func TestLintRejects(t *testing.T) {
	for _, bad := range []string{
		"# TYPE x gauge\nx 1\n",                         // no EOF
		"x 1\n# EOF\n",                                  // no TYPE
		"# TYPE x counter\nx 1\n# EOF\n",                // counter without _total
		"# TYPE x gauge\nx{a=\"b\"} one\n# EOF\n",       // bad value
		"# TYPE x gauge\nx{a=\"b\",a=\"c\"} 1\n# EOF\n", // repeated label
		"# TYPE x gauge\n# TYPE y gauge\nx 1\n# EOF\n",  // sample outside family
		"# TYPE x_ms gauge\n# UNIT x_ms seconds\nx_ms 1\n# EOF\n",
		"# TYPE x gauge\nx{quantile=\"0.5\"} 1\n# EOF\n",
		"# TYPE x gauge\nx{le=\"0.5\"} 1\n# EOF\n",
		"# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n# EOF\n", // falling buckets
		"# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_count 3\n# EOF\n", // _count != +Inf
		"# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_count 1\n# EOF\n",                          // no +Inf
	} {
		if len(Lint(bad)) == 0 {
			t.Errorf("Lint accepted %q", bad)
		}
	}
}

// Breaches found by the Prometheus parser itself, which the hand-written
// linter did not look for.
func TestLintRejectsParserRules(t *testing.T) {
	for _, bad := range []string{
		"# TYPE x gauge\nx 1\n# EOF\nx 2\n",                    // data after EOF
		"# TYPE x counter\nx_total -1\n# EOF\n",                // negative counter
		"# TYPE x gauge\n# HELP x a\n# HELP x b\nx 1\n# EOF\n", // second HELP
		"# TYPE b info\nb_info{v=\"1\"} 2\n# EOF\n",            // info value not 1
		"# TYPE b info\nb{v=\"1\"} 1\n# EOF\n",                 // info without _info
	} {
		if len(Lint(bad)) == 0 {
			t.Errorf("Lint accepted %q", bad)
		}
	}
}

// An info family (which expfmt's parser refuses as a type) is checked as
// the gauge <name>_info it is defined to be.
func TestLintInfo(t *testing.T) {
	if errs := Lint("# TYPE build info\n# HELP build version\nbuild_info{version=\"v1\"} 1\n# TYPE g gauge\ng 2\n# EOF\n"); len(errs) > 0 {
		t.Error(errs)
	}
}
