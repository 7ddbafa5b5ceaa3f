import type { ClusterToolchain } from "../../../src/test-cluster/layout.js";

/** cert-manager's part of a toolchain (every component list has its controller). */
export const certManagerToolchain: ClusterToolchain["certManager"] = {
  version: "1.21.2",
  controller: "/tc/cert-manager/bin/cert-manager-controller",
  crdDir: "/tc/cert-manager/crds",
  solverImage: { ref: "platform-local/cert-manager-acmesolver:v1.21.2", archive: "/tc/cert-manager/acmesolver-image.tar" },
};
