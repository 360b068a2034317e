package remote

// Golden lets the external tests (package remote_test) share the golden
// helper and its -update flag, defined in quote_test.go.
var Golden = golden

// SetAfterGetCheck sets the hook get runs between its check of the
// remote file and its open (nil: none).
func SetAfterGetCheck(f func(remote string)) { afterGetCheck = f }

// SetNotices sets c's notices writer (SSHConfig.Notices).
func SetNotices(c *Console, w interface{ Write([]byte) (int, error) }) { c.notices = w }
