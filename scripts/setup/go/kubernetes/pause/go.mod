// The test cluster's pause image (scripts/setup/kubernetes.sh): standard library only, so
// there is no go.sum to pin.
module platform.local/setup/pause

go 1.24.0
