package pgtest

import (
	"os"
	"strconv"
	"syscall"
)

func itoa(i int) string { return strconv.Itoa(i) }

func statUID(fi os.FileInfo) uint32 { return fi.Sys().(*syscall.Stat_t).Uid }
