package plan

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/benchrig/benchrig/internal/localfile"
)

// licensePrefix starts every CockroachDB licence key; the rest is the
// licence protobuf in unpadded standard base64
// (pkg/ccl/utilccl/licenseccl/license.go: LicensePrefix, Encode, Decode).
const licensePrefix = "crl-0-"

// maxLicenseKey bounds a licence key: the protobuf holds an organisation
// name, a few cluster IDs, a type and dates (a few hundred bytes).
const maxLicenseKey = 4 << 10

// Read returns the secret's value, checked to be a CockroachDB licence
// key: a plan names the variable or file, and whatever it names is sent
// to the plan's hosts, so a value of any other shape (a cloud credential,
// /etc/shadow) is refused before it leaves. The error never holds the
// value. Validation calls it to fail early; the configure stage calls it
// again when it runs.
func (r *SecretRef) Read() (string, error) {
	switch {
	case r.Env != "":
		v, ok := os.LookupEnv(r.Env)
		if !ok || v == "" {
			return "", fmt.Errorf("environment variable %s is not set", r.Env)
		}
		v = strings.TrimSpace(v)
		if err := checkLicenseKey(v); err != nil {
			return "", fmt.Errorf("environment variable %s: %w", r.Env, err)
		}
		return v, nil
	case r.File != "":
		b, err := localfile.Read(r.File, localfile.MaxLicense)
		if err != nil {
			return "", err
		}
		v := strings.TrimSpace(string(b))
		if v == "" {
			return "", fmt.Errorf("%s is empty", r.File)
		}
		if err := checkLicenseKey(v); err != nil {
			return "", fmt.Errorf("%s: %w", r.File, err)
		}
		return v, nil
	}
	return "", fmt.Errorf("no source for the secret")
}

// errNotLicense says what a licence key looks like without showing what
// was found instead.
var errNotLicense = errors.New("not a CockroachDB licence key (its prefix, then unpadded base64, at most 4 KiB); the value is not shown and is not sent")

// checkLicenseKey checks v's shape: the prefix, then base64 that decodes
// (to at least one byte), within maxLicenseKey.
func checkLicenseKey(v string) error {
	if len(v) > maxLicenseKey {
		return errNotLicense
	}
	rest, ok := strings.CutPrefix(v, licensePrefix)
	if !ok || rest == "" {
		return errNotLicense
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/') {
			return errNotLicense
		}
	}
	if _, err := base64.RawStdEncoding.DecodeString(rest); err != nil {
		return errNotLicense
	}
	return nil
}

// String never shows the value.
func (r *SecretRef) String() string {
	if r.Env != "" {
		return "env:" + r.Env
	}
	return "file:" + r.File
}
