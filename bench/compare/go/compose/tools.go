//go:build tools

// compose's main package, so that `go mod tidy` keeps every module it needs in go.mod and
// go.sum. Never compiled: build-go-tool.sh builds the package by its path.
package tools

import _ "github.com/docker/compose/v2/cmd"
