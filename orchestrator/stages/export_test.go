package stages

// ScriptNames lets the external tests undo the listing's abbreviation.
var ScriptNames = scriptNames

// WithLicense is withLicense, for the external tests.
var WithLicense = withLicense
