package tpcc

import "unsafe"

func unsafeSizeofDeck() uintptr { return unsafe.Sizeof(Deck{}) }
