// cert-manager's controller for the test cluster, run by `platform cluster up` as a host
// process (src/test-cluster/cert-manager.ts). cert-manager's own main is a nested module that
// the Go proxy does not serve, so this one is ours, over the root module's packages, and smaller:
// the ACME, CA and self-signed issuers, the Ingress shim (Certificates from annotated Ingresses)
// and the Certificate lifecycle. No leader election (one instance), no webhook (no admission
// validation; the built-in approver approves every request), no cainjector, no metrics server.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/cert-manager/cert-manager/pkg/controller"
	"github.com/cert-manager/cert-manager/pkg/controller/acmechallenges"
	"github.com/cert-manager/cert-manager/pkg/controller/acmeorders"
	shimingresses "github.com/cert-manager/cert-manager/pkg/controller/certificate-shim/ingresses"
	cracme "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/acme"
	crapprover "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/approver"
	crca "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/ca"
	crselfsigned "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/selfsigned"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/issuing"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/keymanager"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/readiness"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/requestmanager"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/revisionmanager"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/trigger"
	"github.com/cert-manager/cert-manager/pkg/controller/clusterissuers"
	"github.com/cert-manager/cert-manager/pkg/controller/issuers"
	dnsutil "github.com/cert-manager/cert-manager/pkg/issuer/acme/dns/util"
	logf "github.com/cert-manager/cert-manager/pkg/logs"

	// The issuer kinds this controller serves (each registers itself).
	_ "github.com/cert-manager/cert-manager/pkg/issuer/acme"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/ca"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/selfsigned"
)

// The control loops run, by the names they register under (pkg/controller.Known()).
var controllers = []string{
	issuers.ControllerName,
	clusterissuers.ControllerName,
	shimingresses.ControllerName,
	acmeorders.ControllerName,
	acmechallenges.ControllerName,
	crapprover.ControllerName,
	cracme.CRControllerName,
	crca.CRControllerName,
	crselfsigned.CRControllerName,
	trigger.ControllerName,
	issuing.ControllerName,
	keymanager.ControllerName,
	requestmanager.ControllerName,
	readiness.ControllerName,
	revisionmanager.ControllerName,
}

type flags struct {
	kubeconfig       string
	clusterResources string
	solverImage      string
	solverNS         string
	healthz          string
}

func main() {
	var f flags
	flag.StringVar(&f.kubeconfig, "kubeconfig", "", "the kubeconfig to reach the API server with")
	flag.StringVar(&f.clusterResources, "cluster-resource-namespace", "kube-system", "where the Secrets of ClusterIssuers (ACME account keys, CA keys) are")
	flag.StringVar(&f.solverImage, "acme-http01-solver-image", "platform-local/cert-manager-acmesolver:v1.21.2", "the image of the HTTP-01 solver pods")
	flag.StringVar(&f.solverNS, "acme-http01-solver-nameservers", "", "host:port of the DNS servers the HTTP-01 self-check resolves names with, comma-separated (default: the system's)")
	flag.StringVar(&f.healthz, "healthz-address", "127.0.0.1:9403", "where /healthz answers 200 once the caches are synced")
	flag.Parse()

	logf.InitLogs()
	defer logf.FlushLogs()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	ctx = logf.NewContext(ctx, logf.Log, "cert-manager-controller")
	if err := run(ctx, f); err != nil {
		logf.Log.Error(err, "cert-manager's controller stopped")
		logf.FlushLogs()
		os.Exit(1)
	}
}

// The options of cert-manager's controller at their v1.21.2 defaults (its configuration API,
// internal/apis/config/controller/v1alpha1/defaults.go), except what the flags set. That API's
// defaulting package is not used: it imports every controller, and the Venafi one needs a
// module the Go proxy does not serve.
func contextOptions(f flags) controller.ContextOptions {
	solverNameservers := []string{}
	if f.solverNS != "" {
		solverNameservers = strings.Split(f.solverNS, ",")
	}
	q := resource.MustParse
	return controller.ContextOptions{
		Kubeconfig:         f.kubeconfig,
		KubernetesAPIQPS:   20,
		KubernetesAPIBurst: 50,
		IssuerOptions:      controller.IssuerOptions{ClusterResourceNamespace: f.clusterResources, ClusterIssuerAmbientCredentials: true},
		ACMEOptions: controller.ACMEOptions{
			HTTP01SolverImage:                 f.solverImage,
			HTTP01SolverResourceRequestCPU:    q("10m"),
			HTTP01SolverResourceRequestMemory: q("64Mi"),
			HTTP01SolverResourceLimitsCPU:     q("100m"),
			HTTP01SolverResourceLimitsMemory:  q("64Mi"),
			ACMEHTTP01SolverRunAsNonRoot:      true,
			HTTP01SolverNameservers:           solverNameservers,
			DNS01Nameservers:                  dnsutil.RecursiveNameservers,
			DNS01CheckAuthoritative:           true,
			DNS01CheckRetryPeriod:             10 * time.Second,
		},
		IngressShimOptions: controller.IngressShimOptions{
			DefaultIssuerKind:                 "Issuer",
			DefaultIssuerGroup:                "cert-manager.io",
			DefaultAutoCertificateAnnotations: []string{"kubernetes.io/tls-acme"},
		},
		CertificateOptions: controller.CertificateOptions{
			CopiedAnnotationPrefixes:                 []string{"*", "-kubectl.kubernetes.io/", "-fluxcd.io/", "-argocd.argoproj.io/"},
			CertificateRequestMinimumBackoffDuration: time.Hour,
			CertificateRequestMaximumBackoffDuration: 32 * time.Hour,
		},
		SchedulerOptions: controller.SchedulerOptions{MaxConcurrentChallenges: 60},
	}
}

func run(ctx context.Context, f flags) error {
	workers := 5 // cert-manager's default NumberOfConcurrentWorkers
	factory, err := controller.NewContextFactory(ctx, contextOptions(f))
	if err != nil {
		return err
	}
	shared, err := factory.Build()
	if err != nil {
		return err
	}
	g, ctx := errgroup.WithContext(ctx)
	// Every constructor registers the informers it needs, so all are built before the factories start.
	for _, name := range controllers {
		construct, ok := controller.Known()[name]
		if !ok {
			return fmt.Errorf("cert-manager has no controller %q", name)
		}
		c, err := construct(factory)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		g.Go(func() error { return c.Run(workers, ctx) })
	}
	shared.SharedInformerFactory.Start(ctx.Done())
	shared.KubeSharedInformerFactory.Start(ctx.Done())
	shared.HTTP01ResourceMetadataInformersFactory.Start(ctx.Done())

	var synced atomic.Bool
	g.Go(func() error {
		shared.SharedInformerFactory.WaitForCacheSync(ctx.Done())
		shared.KubeSharedInformerFactory.WaitForCacheSync(ctx.Done())
		shared.HTTP01ResourceMetadataInformersFactory.WaitForCacheSync(ctx.Done())
		synced.Store(ctx.Err() == nil)
		return nil
	})
	g.Go(func() error { return serveHealthz(ctx, f.healthz, &synced) })
	logf.FromContext(ctx).Info("started", "controllers", controllers)
	return g.Wait()
}

// serveHealthz answers /healthz with 200 once the caches are synced (what `cluster up` waits for).
func serveHealthz(ctx context.Context, addr string, synced *atomic.Bool) error {
	l, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		if !synced.Load() {
			http.Error(w, "caches not synced yet", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	s := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(shutdown)
	}()
	if err := s.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
