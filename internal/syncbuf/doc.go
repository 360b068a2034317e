// Package syncbuf is a bytes.Buffer that several goroutines may write and
// read at once: the console, log and output captures of tests that run
// an executor, a watcher or a server beside the code that reads them.
package syncbuf
