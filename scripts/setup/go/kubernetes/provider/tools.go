//go:build tools

// What the Pulumi Kubernetes provider's main package (copied from the module at build time,
// because its embedded schema files are generated, not shipped) and its generator import.
package tools

import (
	_ "github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	_ "github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
	_ "github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)
