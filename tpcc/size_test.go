package tpcc

import (
	"testing"
	"unsafe"
)

func unsafeSizeofDeck() uintptr { return unsafe.Sizeof(Deck{}) }

// TestTerminalSize guards the wait-mode memory budget: one terminal per
// 1/10 warehouse, 200,000 on a host at 20,000 warehouses.
func TestTerminalSize(t *testing.T) {
	if n := unsafe.Sizeof(terminal{}); n > 48 {
		t.Errorf("terminal is %d bytes, want <= 48", n)
	}
}
