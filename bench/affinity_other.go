//go:build !linux

package main

import "errors"

func pinProcess(cpus []int) (func(), error) {
	return nil, errors.New("CPU pinning needs Linux")
}

func allowedCPUs() []int { return nil }
