// Package redact is the one place where secrets are taken out of text
// that is shown, logged or stored: passwords in connection strings (every
// URL and keyword/value form pgx accepts) and the values of secrets a
// command was handed, in every form a program may echo them (as given, as
// an SQL literal, shell-quoted, JSON-escaped, percent-encoded).
package redact
