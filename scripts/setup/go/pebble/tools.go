//go:build tools

// Pebble's two main packages, so that `go mod tidy` keeps every module they need in go.mod
// and go.sum. Never compiled: build-go-tool.sh builds each package by its import path.
package tools

import (
	_ "github.com/letsencrypt/pebble/v2/cmd/pebble"
	_ "github.com/letsencrypt/pebble/v2/cmd/pebble-challtestsrv"
)
