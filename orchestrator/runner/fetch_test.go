package runner

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

func fetchStep(host, source string) *stages.Step {
	url := ""
	if source != "" {
		url = "http://10.0.0.1:29876/benchrig.gz"
	}
	return &stages.Step{Host: host, Kind: stages.Fetch, What: "fetch", Source: source, URL: url,
		Transfer: remote.Transfer{Local: "/opt/benchrig", Remote: "d/benchrig", Mode: 0o755, SHA256: "ab12"}}
}

// TestFetchFallsBack: a host whose fetch from its peer fails is sent the
// gzip stream from this machine and unpacks it, and the runner says why;
// a host that fetched is sent nothing; the seed (no source) is uploaded
// without a word once its first unpack finds nothing.
func TestFetchFallsBack(t *testing.T) {
	for _, tc := range []struct {
		name, source string
		fail         func(remote.Entry) error
		wantOps      []string
		wantSaid     string
	}{
		{"fetched", "a", nil, []string{"run"}, ""},
		{"peer stalled", "a", func(e remote.Entry) error {
			if strings.Contains(e.Text, "http://") {
				return &remote.ExitError{Host: "b", Code: 28, StderrTail: "curl: (28) Operation too slow\n"}
			}
			return nil
		}, []string{"run", "put", "run"}, "could not fetch d/benchrig from a (curl: (28) Operation too slow); sending it from this machine"},
		{"seed", "", func() func(remote.Entry) error {
			n := 0
			return func(e remote.Entry) error {
				if n++; n == 1 {
					return &remote.ExitError{Host: "b", Code: 3, StderrTail: "d/.benchrig.gz: nothing uploaded yet"}
				}
				return nil
			}
		}(), []string{"run", "put", "run"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := remote.NewRecorder()
			rec.Fail = tc.fail
			ev := &events{}
			r := &Runner{Exec: rec, Observers: []Observer{ev}}
			if err := run(t, r, stage("install", fetchStep("b", tc.source))); err != nil {
				t.Fatal(err)
			}
			var ops []string
			for _, e := range rec.Entries() {
				ops = append(ops, e.Op)
			}
			if !slices.Equal(ops, tc.wantOps) {
				t.Fatalf("calls %v, want %v", rec.Entries(), tc.wantOps)
			}
			if len(ops) == 3 {
				es := rec.Entries()
				if !strings.Contains(es[1].Text, "d/.benchrig.gz") || !strings.Contains(es[1].Text, "(gzip)") {
					t.Errorf("upload %q: not the gzip stream to d/.benchrig.gz", es[1].Text)
				}
				if strings.Contains(es[2].Text, "http://") || !strings.Contains(es[2].Text, "ab12") {
					t.Errorf("unpack %q: fetches again, or checks no digest", es[2].Text)
				}
			}
			var said []string
			for _, e := range ev.list {
				if e.Kind == Message {
					said = append(said, e.Text)
				}
			}
			if tc.wantSaid == "" && len(said) > 0 || tc.wantSaid != "" && !slices.Contains(said, tc.wantSaid) {
				t.Errorf("said %q, want %q", said, tc.wantSaid)
			}
		})
	}
}

// TestFetchUploadFails: when the direct upload fails too, the step fails
// with the upload's error.
func TestFetchUploadFails(t *testing.T) {
	rec := remote.NewRecorder()
	rec.Fail = func(e remote.Entry) error {
		switch e.Op {
		case "put":
			return errors.New("disk full")
		case "run":
			return &remote.ExitError{Host: "b", Code: 7}
		}
		return nil
	}
	r := &Runner{Exec: rec}
	err := run(t, r, stage("install", fetchStep("b", "a")))
	var se *StepError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("got %v", err)
	}
}
