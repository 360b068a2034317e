package remote

import (
	"strings"
	"testing"
)

// The answer to statusJob quotes the host's pid and exit files: a hostile
// or broken host decides what they hold.
func TestParseJobStatus(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want JobStatus
		err  string // substring; "" = accepted
	}{
		{in: "", want: JobStatus{State: JobNone}},
		{in: "none\n", want: JobStatus{State: JobNone}},
		{in: "running 4242\n", want: JobStatus{State: JobRunning, Pid: 4242}},
		{in: "lost 7\n", want: JobStatus{State: JobLost, Pid: 7}},
		{in: "exited 12 0\n", want: JobStatus{State: JobExited, Pid: 12}},
		{in: "exited 12 143\n", want: JobStatus{State: JobExited, Pid: 12, ExitCode: 143}},
		{in: "exited 4194304 255\n", want: JobStatus{State: JobExited, Pid: 1 << 22, ExitCode: 255}},
		{in: "running 0\n", err: "outside"},
		{in: "running -1\n", err: "not a decimal"},
		{in: "running +5\n", err: "not a decimal"},
		{in: "running 007\n", err: "not a decimal"},
		{in: "running 4194305\n", err: "outside"},
		{in: "running 99999999999999999999\n", err: "not a decimal"},
		{in: "exited 12 256\n", err: "outside"},
		{in: "exited 12 -1\n", err: "not a decimal"},
		{in: "exited 12\n", err: "unexpected"},
		{in: "exited 12 0\nrunning 5\n", err: "more than one line"},
		{in: "running 5\x1b[2J\n", err: "not a decimal"},
		{in: "sleeping 5\n", err: "unexpected"},
		{in: "running " + strings.Repeat("9", 200) + "\n", err: "more than the 128"},
		{in: "none" + strings.Repeat(" ", 1<<20), err: "more than the 128"},
	} {
		got, err := parseJobStatus([]byte(tc.in))
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("parseJobStatus(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("parseJobStatus(%q) = %+v, %v; want an error with %q", tc.in, got, err, tc.err)
		}
		if err != nil && strings.ContainsAny(err.Error(), "\x1b\n") {
			t.Errorf("parseJobStatus(%q): error %q holds raw control bytes", tc.in, err)
		}
	}
}

func FuzzParseJobStatus(f *testing.F) {
	for _, s := range []string{"", "none\n", "running 1\n", "lost 2\n", "exited 3 4\n", "running 0\n", "exited 1 -1\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := parseJobStatus(b)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\x1b\r\n") {
				t.Fatalf("error holds raw control bytes: %q", err)
			}
			return
		}
		if len(b) > maxJobStatusBytes {
			t.Fatalf("accepted %d bytes", len(b))
		}
		switch st.State {
		case JobNone:
			if st.Pid != 0 {
				t.Fatalf("none with pid %d", st.Pid)
			}
		case JobRunning, JobLost, JobExited:
			if st.Pid < 1 || st.Pid > maxJobPid || st.ExitCode < 0 || st.ExitCode > maxJobExitCode {
				t.Fatalf("accepted out of bounds: %+v", st)
			}
		default:
			t.Fatalf("accepted state %q", st.State)
		}
	})
}
