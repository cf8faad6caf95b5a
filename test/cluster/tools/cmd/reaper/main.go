// Command reaper starts one cluster binary so that it dies with the test
// runner that started it, even when the runner is killed with SIGKILL.
//
// Node cannot set a parent-death signal on the processes it spawns, so the
// harness spawns `reaper <expected-parent-pid> <binary> <args...>` instead.
// The reaper asks the kernel for SIGKILL when its parent dies
// (PR_SET_PDEATHSIG), checks that the parent has not already gone, then
// replaces itself with the binary via execve. The death signal survives
// execve, so the binary keeps it and the pid Node holds is the binary's own.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

func init() {
	// The death signal belongs to the thread that sets it, and execve keeps
	// only the calling thread: both must happen on the same OS thread.
	runtime.LockOSThread()
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: reaper <expected-parent-pid> <binary> [args...]")
		os.Exit(2)
	}
	parent, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "reaper: parent pid %q is not a number\n", os.Args[1])
		os.Exit(2)
	}
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "reaper: prctl(PR_SET_PDEATHSIG): %v\n", err)
		os.Exit(1)
	}
	// The parent may have died between fork and prctl; the kernel would not
	// signal us for that, so we would be reparented and live on.
	if os.Getppid() != parent {
		fmt.Fprintf(os.Stderr, "reaper: parent %d is gone, not starting %s\n", parent, os.Args[2])
		os.Exit(1)
	}
	binary, err := exec.LookPath(os.Args[2])
	if err != nil {
		fmt.Fprintf(os.Stderr, "reaper: %v\n", err)
		os.Exit(127)
	}
	err = syscall.Exec(binary, os.Args[2:], os.Environ())
	fmt.Fprintf(os.Stderr, "reaper: exec %s: %v\n", binary, err)
	os.Exit(126)
}
