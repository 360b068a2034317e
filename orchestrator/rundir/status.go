package rundir

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// PrintStatus writes the stage × host table of a run: one line per stage,
// or with perHost one per host of each stage, then every error.
func PrintStatus(w io.Writer, st *State, perHost bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "plan %s, started %s\n\n", st.Plan, st.Created.Format(time.RFC3339))
	if perHost {
		fmt.Fprintln(tw, "STAGE\tHOST\tSTATUS\tSTEPS\tTIME\tNOW / ERROR")
	} else {
		fmt.Fprintln(tw, "STAGE\tSTATUS\tHOSTS DONE\tFAILED\tTIME")
	}
	for _, s := range st.Stages {
		if perHost {
			for _, h := range s.Hosts {
				now := h.Current
				if h.Unreachable != nil {
					now = h.Unreachable.Text(h.Host, time.Now()) + ": " + h.Current
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%s\n", s.Name, h.Host, h.Status, h.Done, h.Steps, span(h.Started, h.Finished), firstNonEmpty(h.Error, now))
			}
			continue
		}
		done, failed := 0, []string{}
		for _, h := range s.Hosts {
			switch h.Status {
			case Done:
				done++
			case Failed:
				failed = append(failed, h.Host)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\n", s.Name, s.Status, done, len(s.Hosts), strings.Join(failed, ","), span(s.Started, s.Finished))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range st.Stages {
		for _, h := range s.Hosts {
			if h.Error != "" && !perHost {
				fmt.Fprintf(w, "\n%s on %s: %s\n", s.Name, h.Host, h.Error)
			}
			if h.Unreachable != nil && h.Error == "" && !perHost {
				fmt.Fprintf(w, "\n%s: %s (%s)\n", s.Name, h.Unreachable.Text(h.Host, time.Now()), h.Current)
			}
			if d := h.Died; d != nil {
				fmt.Fprintf(w, "\n%s on %s: INCOMPLETE: %s: job %s %s (measure again with benchrig resume --from %s)\n", s.Name, h.Host, d.Step, d.Job, d.Reason, s.Name)
			}
		}
	}
	return nil
}

func span(a, b *time.Time) string {
	switch {
	case a == nil:
		return "-"
	case b == nil:
		return "since " + a.Local().Format("15:04:05")
	}
	return b.Sub(*a).Round(time.Second).String()
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
