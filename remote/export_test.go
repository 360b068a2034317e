package remote

// Golden lets the external tests (package remote_test) share the golden
// helper and its -update flag, defined in quote_test.go.
var Golden = golden

// SetAfterGetCheck sets the hook get runs between its check of the
// remote file and its open (nil: none).
func SetAfterGetCheck(f func(remote string)) { afterGetCheck = f }
