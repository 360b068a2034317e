package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/benchrig/benchrig/internal/localfile"
)

// Schema is the version of every result file written by this benchrig
// that an older reader reads correctly.
const Schema = "benchrig.result/v1"

// SchemaV2 is v1 plus what a v1 reader would misread: a tpcc.merge whose
// "incomplete" hosts' measured runs died before the window's end (its
// figures cover less than the run). A file is written as v2 only when
// it holds such a field, so a v1 reader refuses exactly the files it
// would take for complete and still reads every other.
const SchemaV2 = "benchrig.result/v2"

// Header is the envelope's two fields; result types embed it first, so
// they come first in the JSON.
type Header struct {
	Schema string `json:"schema"`
	Kind   string `json:"kind"`
}

// New returns the header of a result of kind.
func New(kind string) Header { return Header{Schema: Schema, Kind: kind} }

// Check returns an error unless h is a current result of one of kinds.
func (h Header) Check(kinds ...string) error {
	if h.Schema == "" {
		return errors.New("no \"schema\" field: not a benchrig result, or written by a benchrig older than " + Schema)
	}
	if h.Schema != Schema && h.Schema != SchemaV2 {
		return fmt.Errorf("schema %q, this benchrig reads %q and %q", h.Schema, Schema, SchemaV2)
	}
	for _, k := range kinds {
		if h.Kind == k {
			return nil
		}
	}
	return fmt.Errorf("kind %q, want %q", h.Kind, kinds)
}

// Decode unmarshals data into v (a result type embedding Header) after
// checking its envelope against kinds.
func Decode(data []byte, v any, kinds ...string) error {
	var h Header
	if err := json.Unmarshal(data, &h); err != nil {
		return err
	}
	if err := h.Check(kinds...); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// Marshal is v as the files hold it: indented, with a final newline, and
// "<" or "&" in messages left as they are (the files are not HTML).
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteFile writes v to path through a temporary file in the same
// directory and a rename, so a reader (or a collect step) never sees half
// a result.
func WriteFile(path string, v any) error {
	data, err := Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// MaxFile bounds a result file's read: results are collected from hosts
// that may be hostile, and the largest honest one (a merge with its
// per-second series of a long run) is a few MB.
const MaxFile = 64 << 20

// ReadFile reads and decodes the result at path (see Decode): a regular
// file of at most MaxFile bytes.
func ReadFile(path string, v any, kinds ...string) error {
	data, err := localfile.Read(path, MaxFile)
	if err != nil {
		return err
	}
	if err := Decode(data, v, kinds...); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
