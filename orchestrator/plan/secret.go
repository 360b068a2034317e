package plan

import (
	"fmt"
	"os"
	"strings"
)

// Read returns the secret's value. It is called only when a step that
// needs it runs, never by validation or dry-run.
func (r *SecretRef) Read() (string, error) {
	switch {
	case r.Env != "":
		v, ok := os.LookupEnv(r.Env)
		if !ok || v == "" {
			return "", fmt.Errorf("environment variable %s is not set", r.Env)
		}
		return strings.TrimSpace(v), nil
	case r.File != "":
		b, err := os.ReadFile(r.File)
		if err != nil {
			return "", err
		}
		v := strings.TrimSpace(string(b))
		if v == "" {
			return "", fmt.Errorf("%s is empty", r.File)
		}
		return v, nil
	}
	return "", fmt.Errorf("no source for the secret")
}

// String never shows the value.
func (r *SecretRef) String() string {
	if r.Env != "" {
		return "env:" + r.Env
	}
	return "file:" + r.File
}
