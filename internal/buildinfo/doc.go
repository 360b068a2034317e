// Package buildinfo prints what a bug report about a benchrig binary
// needs: its version, toolchain, platform, VCS revision and the modules
// linked in, read from the binary's own build information.
package buildinfo
