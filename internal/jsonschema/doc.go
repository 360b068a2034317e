// Package jsonschema checks a JSON document against the subset of JSON
// Schema (draft 2020-12) that benchrig's schema files under docs/schema
// use: type, properties, required, additionalProperties, items, enum,
// const, minimum, maximum, oneOf and local "#/$defs/..." references.
// Anything else in a schema is an error, not silently ignored, so a
// schema cannot claim a constraint that no test enforces.
//
// It exists so that tests can prove the files benchrig writes match the
// documented schemas without a general validator dependency; readers in
// other languages use any validator on the same files.
package jsonschema
