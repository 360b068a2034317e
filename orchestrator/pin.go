package orchestrator

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/benchrig/benchrig/internal/localfile"
	"github.com/benchrig/benchrig/orchestrator/stages"
)

// PinUploads gives every upload (and fetch) step without a sha256 the digest of its
// local file, read now as a bounded, regular, executable file
// (internal/localfile): the dry-run then shows which bytes would be
// shipped to the hosts, the run state records them, and the upload itself
// refuses a local file that changed since (remote.Transfer.SHA256). A
// step whose plan gave the sha256 keeps it; validation checked the file
// has it.
func PinUploads(list []stages.Stage) error {
	sums := map[string]string{}
	for i := range list {
		for j := range list[i].Steps {
			s := &list[i].Steps[j]
			if (s.Kind != stages.Put && s.Kind != stages.Fetch) || s.Transfer.SHA256 != "" {
				continue
			}
			sum, ok := sums[s.Transfer.Local]
			if !ok {
				var err error
				if sum, err = binarySHA256(s.Transfer.Local); err != nil {
					return fmt.Errorf("stage %s: host %s: %s: %w", list[i].Name, s.Host, s.What, err)
				}
				sums[s.Transfer.Local] = sum
			}
			s.Transfer.SHA256 = sum
		}
	}
	return nil
}

// binarySHA256 is the hex sha256 of a local binary to upload: a regular,
// executable file of at most localfile.MaxBinary bytes.
func binarySHA256(path string) (string, error) {
	f, st, err := localfile.Open(path, localfile.MaxBinary)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s: not executable (mode %04o); a binary to upload must be an executable file", path, st.Mode().Perm())
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, localfile.MaxBinary)); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
