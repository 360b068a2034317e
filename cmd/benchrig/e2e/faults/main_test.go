package faults_test

import (
	"os"
	"testing"

	"github.com/benchrig/benchrig/cmd/benchrig/e2e"
)

func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }
