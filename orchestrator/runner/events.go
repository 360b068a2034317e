package runner

import (
	"time"

	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// EventKind says what happened.
type EventKind int

const (
	// StageStarted: a stage begins (Hosts, Serial, Notes, Check).
	StageStarted EventKind = iota
	// StageSkipped: the stage finished in an earlier attempt.
	StageSkipped
	// StageChecked: the stage's Check judged every host (Text is its
	// table, Brief the table's rows that are not ok and a summary; Err
	// its verdict when it failed).
	StageChecked
	// StageDone and StageFailed end a stage (Elapsed; Err).
	StageDone
	StageFailed
	// StepStarted, StepDone and StepFailed frame each step. Index is the
	// step's position among its host's steps in the stage, or -1 for the
	// steps of a search iteration (made at run time, not resume points).
	StepStarted
	StepDone
	StepFailed
	// HostDone: a host finished its steps of a phase (Done of Of hosts).
	HostDone
	// PhaseDone: every host finished a phase; Listing holds the steps each
	// host was sent, in host order (Hosts).
	PhaseDone
	// Message: something worth saying about a host (re-attaching to a job).
	Message
	// SearchTrying, SearchVerdict and SearchDone follow a line search
	// (Value; Point and Earlier; Value is the best passing value or 0).
	SearchTrying
	SearchVerdict
	SearchDone
	// HostUnreachable: a step's host dropped its connection and the
	// runner is redialing (Since, Attempt, BudgetLeft; Err is why, and
	// Step the step that waits). Other hosts carry on.
	HostUnreachable
	// HostReconnected: the host answers again after Attempt tries
	// (Since; Elapsed is how long it was away); the step re-attaches.
	HostReconnected
)

// Event is one thing the runner did. Observers get events one at a time,
// in the order they happened.
type Event struct {
	Kind  EventKind
	Time  time.Time
	Stage string
	// StageIndex is the stage's position among the compiled stages.
	StageIndex int
	Host       string

	// Stage events.
	Hosts   []string
	Serial  bool
	Notes   []string
	Check   *stages.Check
	Elapsed time.Duration

	// Step events.
	Step  stages.Step
	Index int
	// Digest is Step.Digest as compiled (before the runner adds
	// --start-at): what the state records, so that a resume can tell a
	// changed plan from the one that ran.
	Digest string
	// Sent and Received are when the step was sent and when its answer
	// came, by the real clock (probes measure with them).
	Sent, Received time.Time
	Result         remote.Result
	// CheckFailed: the step finished, but exited with its CheckExit (a
	// benchmark check failed); the stage goes on.
	CheckFailed bool
	// Died: the step's measured run died before its end (StepDone; the
	// host's window is incomplete, see died.go).
	Died *Death
	// Err is a failure, with secrets scrubbed from its text.
	Err error

	Done, Of int
	Listing  [][]stages.Step
	Text     string
	Brief    string
	Value    int
	Point    stages.SearchPoint
	Earlier  bool
	// Reset: a failed Check needs every host's answer again, so a resume
	// reruns the whole stage.
	Reset bool

	// HostUnreachable and HostReconnected.
	Since      time.Time
	Attempt    int
	BudgetLeft time.Duration
}

// Observer is told about every event. An error stops the run: the state
// file observer must not lose a step.
type Observer interface {
	Observe(Event) error
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(Event) error

// Observe calls f.
func (f ObserverFunc) Observe(e Event) error { return f(e) }
