package stages_test

import (
	"strings"
	"testing"

	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// TestSafeToRepeat: which steps the runner may run again after a dropped
// connection, and the dry-run's marker on the others.
func TestSafeToRepeat(t *testing.T) {
	cmd := remote.Cmd{Args: []string{"psql", "-c", "INSERT"}}
	for _, tc := range []struct {
		step   stages.Step
		safe   bool
		marked bool
	}{
		{stages.Step{Kind: stages.Exec, Cmd: cmd}, false, true},
		{stages.Step{Kind: stages.Exec, Cmd: cmd, Idempotent: true}, true, false},
		{stages.Step{Kind: stages.Wait, Cmd: cmd}, true, false},
		{stages.Step{Kind: stages.Put}, true, false},
		{stages.Step{Kind: stages.Get}, true, false},
		{stages.Step{Kind: stages.Job, Cmd: cmd}, true, false},
		{stages.Step{Kind: stages.Local, Cmd: cmd}, false, false}, // never crosses a connection
	} {
		if got := tc.step.SafeToRepeat(); got != tc.safe {
			t.Errorf("%s (idempotent %v): SafeToRepeat %v, want %v", tc.step.Kind, tc.step.Idempotent, got, tc.safe)
		}
		line, _ := tc.step.Listing()
		if got := strings.HasSuffix(line, stages.OnceMarker); got != tc.marked {
			t.Errorf("%s (idempotent %v): dry-run line %q marked %v, want %v", tc.step.Kind, tc.step.Idempotent, line, got, tc.marked)
		}
	}
}
