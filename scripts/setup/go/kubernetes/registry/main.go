// The test cluster's image registry (scripts/setup/kubernetes.sh): go-containerregistry's
// registry, its blobs on disk, on a loopback address. The Kubernetes target pushes images to
// it with --registry, as it would to a real cluster's registry, and the cluster's containerd
// pulls them from it (plain HTTP, on loopback only).
package main

import (
	"flag"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

func main() {
	addr := flag.String("listen", "127.0.0.1:5001", "address to listen on")
	dir := flag.String("dir", "", "directory for the blobs (required)")
	flag.Parse()
	if *dir == "" {
		log.Fatal("--dir is required")
	}
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		log.Fatal(err)
	}
	handler := registry.New(registry.WithBlobHandler(registry.NewDiskBlobHandler(*dir)))
	srv := &http.Server{Addr: *addr, Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("registry listening on %s, blobs in %s", *addr, *dir)
	log.Fatal(srv.ListenAndServe())
}
