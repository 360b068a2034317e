package orchestrator

import "os/exec"

func execSh(script string) (string, error) {
	out, err := exec.Command("sh", "-c", script).Output()
	return string(out), err
}
