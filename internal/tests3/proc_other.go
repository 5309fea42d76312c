//go:build !linux

package tests3

import "syscall"

// sysProcAttr: elsewhere the server outlives a test process that is
// killed; it ends with the machine's session.
func sysProcAttr() *syscall.SysProcAttr { return nil }
