//go:build tools

// CoreDNS, the test cluster's DNS, built from its module (no image registry here).
package tools

import _ "github.com/coredns/coredns"
