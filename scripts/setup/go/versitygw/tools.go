//go:build tools

// Package tools pins versitygw (an S3-compatible server) for the backup tests: built by
// scripts/setup/versitygw.sh from this module.
package tools

import _ "github.com/versity/versitygw/cmd/versitygw"
