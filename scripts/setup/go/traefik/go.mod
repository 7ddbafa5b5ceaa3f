// Traefik v3 built from Go modules for bench/edge (the peer proxy of Coolify and Dokploy).
// scripts/setup/traefik.sh builds it with build-go-tool.sh; go.sum is the authority for every module's hash.
module platform.local/tools/traefik

go 1.26.0

require github.com/traefik/traefik/v3 v3.7.13
