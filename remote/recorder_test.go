package remote_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/benchrig/benchrig/remote"
)

func TestRecorder(t *testing.T) {
	r := remote.NewRecorder()
	boom := errors.New("boom")
	r.Fail = func(e remote.Entry) error {
		if e.Host == "bad" {
			return boom
		}
		return nil
	}
	ctx := context.Background()
	cmd := remote.Cmd{Args: []string{"cockroach", "sql"}, Stdin: "SET CLUSTER SETTING enterprise.license = '" + remote.Placeholder("lic") + "';\n",
		Secrets: map[string]remote.Secret{"lic": secret("crl-0-SECRET")}}
	if _, err := r.Run(ctx, "n1", cmd); err != nil {
		t.Fatal(err)
	}
	if err := r.Put(ctx, "n1", remote.Transfer{Local: "bin/cockroach", Remote: "/usr/local/bin/cockroach", Mode: 0o755}); err != nil {
		t.Fatal(err)
	}
	if err := r.Get(ctx, "bad", remote.Transfer{Local: "out/x", Remote: "x"}); !errors.Is(err, boom) {
		t.Errorf("Fail hook: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := r.Run(cctx, "n1", cmd); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	want := []remote.Entry{
		{Host: "n1", Op: "run", Text: "cockroach sql\n<<< SET CLUSTER SETTING enterprise.license = '****';"},
		{Host: "n1", Op: "put", Text: "bin/cockroach -> /usr/local/bin/cockroach (mode 0755)"},
		{Host: "bad", Op: "get", Text: "x -> out/x"},
	}
	if got := r.Entries(); !reflect.DeepEqual(got, want) {
		t.Errorf("entries:\n%q\nwant\n%q", got, want)
	}
}
