// Package localfile is the one way benchrig reads a file on this machine
// that a plan (or a flag) names: an ssh_config, an identity file, a
// known_hosts file, a licence file, a binary to upload, the plan itself.
//
// A plan is data written by someone else; the path it gives may be a FIFO
// (opening it for reading blocks until a writer appears, forever), a
// device (/dev/zero never ends; a tape device rewinds on open), a
// directory or a symlink to any of them. So every such file is checked
// with stat before it is opened, opened with O_NONBLOCK (a FIFO that
// slipped in between does not block), checked again with fstat on the
// descriptor actually read (it must be the same regular file), and read
// at most up to a bound per kind of file plus one byte, which tells a file
// at the bound from a larger one without reading the larger one.
package localfile
