// The pause process of the test cluster's pod sandboxes: it holds a pod's namespaces open,
// reaps orphans (it is PID 1 of the pod), and exits on SIGINT or SIGTERM. Kubernetes' own
// pause is C, built by its release tooling and published only to a registry, which cannot be
// reached here, so the set-up builds this one with the Go toolchain alone.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 16)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var status syscall.WaitStatus
			if pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
	}
}
