//go:build !unix

package main

// watchMemProfile is unix-only (it listens for SIGUSR1).
func watchMemProfile() {}
