//go:build tools

// The Node.js language host's main package, so that `go mod tidy` keeps every module it
// needs in go.mod and go.sum. Never compiled: build-go-tool.sh builds the package by its path.
package tools

import _ "github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs"
