//go:build tools

// The test cluster's tools built from this module: Kubernetes' binaries, CoreDNS, metrics-server
// and the Pulumi Kubernetes provider's packages (its main is generated at build time). Most are
// main packages, so they are imported only under the "tools" tag: enough for `go mod tidy` to
// pin every module they need in go.sum.
package tools

import (
	_ "github.com/coredns/coredns"
	_ "github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	_ "github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
	_ "github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
	_ "sigs.k8s.io/metrics-server/cmd/metrics-server"
)
