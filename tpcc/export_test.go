package tpcc

// chooseForTests is profile.Choose in this package's test binary: the
// internal tests cannot import tpcc/profile (it imports this package),
// so choose_ext_test.go (package tpcc_test) hands it in at init. Tests
// that size or run the workload profile (BenchmarkHost200k, TestHostSplit)
// set RunConfig.ChooseProfile from it, as the command layer does.
var chooseForTests ChooseProfile

// SetChooseForTests is how choose_ext_test.go hands profile.Choose in.
func SetChooseForTests(c ChooseProfile) { chooseForTests = c }
