// Command benchrig-lab starts a lab of real OpenSSH sshd servers on
// loopback addresses (127.0.0.2, 127.0.0.3, ...), one per named host,
// writes an ssh_config naming them lab-<host>, runs a command, and stops
// the servers when the command ends. `make demo` and the end-to-end tests
// run plans/local.yaml inside it.
//
//	benchrig-lab [-dir /tmp/benchrig-lab] [-hosts db1,db2,db3,load1,load2] -- COMMAND [ARGS...]
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/benchrig/benchrig/remote/sshtest"
)

func main() {
	os.Exit(run())
}

func run() int {
	dir := flag.String("dir", "/tmp/benchrig-lab", "lab directory (keys, known_hosts, ssh_config, sshd logs)")
	hosts := flag.String("hosts", "db1,db2,db3,load1,load2", "host names, in address order from 127.0.0.2")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: benchrig-lab [-dir DIR] [-hosts a,b,c] -- COMMAND [ARGS...]")
		return 2
	}
	names := strings.Split(*hosts, ",")
	lab, err := sshtest.Start(*dir, len(names))
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchrig-lab: %v\n", err)
		return 1
	}
	defer lab.Close()
	cfg := filepath.Join(lab.Dir(), "ssh_config")
	if err := lab.WriteSSHConfig(cfg, "lab-", names); err != nil {
		fmt.Fprintf(os.Stderr, "benchrig-lab: %v\n", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "benchrig-lab: %d sshd on 127.0.0.2-%d as user %s; ssh_config %s, known_hosts %s\n",
		len(names), 1+len(names), lab.User(), cfg, lab.KnownHostsPath())

	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "BENCHRIG_LAB="+lab.Dir(), "BENCHRIG_LAB_USER="+lab.User())
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "benchrig-lab: %v\n", err)
		return 1
	}
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		for s := range sig {
			_ = cmd.Process.Signal(s)
		}
	}()
	err = cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchrig-lab: %v\n", err)
		return 1
	}
	return 0
}
