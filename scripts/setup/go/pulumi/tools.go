//go:build tools

// The Pulumi CLI's main package, so that `go mod tidy` keeps every module it needs in
// go.mod and go.sum. Never compiled: build-go-tool.sh builds the package by its path.
package tools

import (
	_ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
	// The build stamps the version into this package (-ldflags -X): keep sdk/v3 a direct,
	// visible requirement at the same version as pkg/v3.
	_ "github.com/pulumi/pulumi/sdk/v3/go/common/version"
)
