//go:build tools

// metrics-server, the test cluster's resource metrics API (what HorizontalPodAutoscalers and
// kubectl top read), built from its module and run as a host process.
package tools

import _ "sigs.k8s.io/metrics-server/cmd/metrics-server"
