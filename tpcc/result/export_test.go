package result

// The external tests (package result_test, which may import
// resulttest) reach these through package result.
var (
	LiveFamilies   = liveFamilies
	LatencySamples = latencySamples
)
