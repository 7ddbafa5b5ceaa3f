// Caddy built from its Go modules (the standard modules, as the official binary), so the edge
// runs a current Caddy where only package registries are reachable. build-go-tool.sh builds
// this package; go.sum is the authority for every module's hash.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
)

func main() {
	caddycmd.Main()
}
