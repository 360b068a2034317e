package remote

// Golden lets the external tests (package remote_test) share the golden
// helper and its -update flag, defined in quote_test.go.
var Golden = golden
