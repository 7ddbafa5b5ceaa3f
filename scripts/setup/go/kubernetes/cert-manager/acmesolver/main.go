// The HTTP-01 solver that cert-manager's controller runs as a pod per challenge: it answers
// the one token it is given with its key. cert-manager's own main is a nested module that the
// Go proxy does not serve, so this is ours, over the same package (pkg/issuer/acme/http/solver),
// with the flags the controller passes to the pod (pkg/issuer/acme/http/pod.go).
package main

import (
	"context"
	"errors"
	"flag"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/cert-manager/cert-manager/pkg/issuer/acme/http/solver"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
)

func main() {
	s := &solver.HTTP01Solver{}
	flag.IntVar(&s.ListenPort, "listen-port", 8089, "the port to answer on")
	flag.StringVar(&s.Domain, "domain", "", "the domain being validated")
	flag.StringVar(&s.Token, "token", "", "the challenge's token")
	flag.StringVar(&s.Key, "key", "", "the key to answer the token with")
	flag.Parse()

	logf.InitLogs()
	defer logf.FlushLogs()
	log := logf.Log.WithName("acmesolver")

	// The kubelet stops the pod with SIGTERM: close the listener, let a request in flight finish.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(shutdown)
	}()
	if err := s.Listen(log); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error(err, "the solver's listener failed")
		logf.FlushLogs()
		os.Exit(1)
	}
}
