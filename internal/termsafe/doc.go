// Package termsafe makes text that came from a host safe to show on the
// operator's terminal. A host's output, status and error text are data
// from a party that may be hostile (or a program that draws progress bars
// for a terminal of its own): printed raw, an escape sequence could
// rewrite the title, move the cursor over earlier lines, hide text, hand
// the terminal a hyperlink or a clipboard write (OSC 8, OSC 52), and a
// bidi override or a carriage return could make a line read other than it
// is. String shows every such character as a visible escape instead; the
// raw bytes stay in the host's log file.
package termsafe
