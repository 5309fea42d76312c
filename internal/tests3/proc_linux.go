package tests3

import "syscall"

// sysProcAttr kills the server when the test process ends.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
