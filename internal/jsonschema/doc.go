// Package jsonschema validates the JSON documents benchrig writes against
// the JSON Schema files that document them (docs/schema, and a package's
// schema/ directory) in tests, through a maintained, complete validator
// (github.com/santhosh-tekuri/jsonschema/v6, which passes the official
// JSON-Schema-Test-Suite): every keyword of the declared draft is
// enforced, "format" included, and a schema file is itself checked
// against its draft's metaschema when loaded. Readers in other languages
// use any validator on the same files.
//
// It only adapts that library to the tests' needs: a schema loads from a
// path, references never leave the file, and Validate lists every
// violation as "JSON pointer: message (at schema keyword)".
package jsonschema
