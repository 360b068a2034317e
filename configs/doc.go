// Package configs holds the named settings presets that plans refer to
// (settings.preset) and the example files a user copies. The presets are
// embedded in the binary, so a plan works wherever benchrig is run.
package configs
