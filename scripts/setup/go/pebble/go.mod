// Pebble (Let's Encrypt's ACME test server) and pebble-challtestsrv (its DNS), built from Go
// modules so the public-edge tests get a real ACME CA where only package registries are
// reachable. build-go-tool.sh builds each main package by its path; go.sum is the authority
// for every module's hash.
module platform.local/tools/pebble

go 1.26.0

require github.com/letsencrypt/pebble/v2 v2.10.1

require (
	github.com/go-jose/go-jose/v4 v4.1.4 // indirect
	github.com/letsencrypt/challtestsrv v1.4.2 // indirect
	github.com/miekg/dns v1.1.62 // indirect
	golang.org/x/mod v0.24.0 // indirect
	golang.org/x/net v0.40.0 // indirect
	golang.org/x/sync v0.14.0 // indirect
	golang.org/x/sys v0.33.0 // indirect
	golang.org/x/tools v0.33.0 // indirect
)
