// Package rundir owns a run directory (runs/<plan>-<time>/): its layout,
// its creation with the plan's own copy, the lock that keeps a second
// orchestrator out, the state file (an observer of runner events, written
// atomically after every step, and the resume points a resumed run skips
// by), the per-step logs and journal, and the status table.
//
// It holds no secret: step errors and logs are scrubbed before they get
// here.
package rundir
