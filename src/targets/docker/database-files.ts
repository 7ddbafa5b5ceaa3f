import * as pulumi from "@pulumi/pulumi";
import type { PlannedService } from "../../plan/types.js";
import type { ContainerFile } from "../../provider/contract/docker-inputs.js";
import type { DatabaseTls } from "../shared/database-tls.js";

/**
 * The TLS files a service's containers get before they start (see provider/docker/files.ts): a
 * database its certificate and key, owned by the image's postgres user (the server refuses a
 * key others can read); a service that references a database the stack's CA. The key travels
 * as a secret input, so it stays encrypted in the state and masked in every diff.
 */
export function databaseTlsFiles(s: PlannedService, tls: DatabaseTls | undefined): pulumi.Output<ContainerFile[]> | undefined {
  if (!tls) return undefined;
  const server = tls.servers.get(s.name);
  if (s.database && server) {
    const { certFile, keyFile, owner } = s.database.tls;
    return pulumi.secret(
      pulumi.all([server.certPem, server.keyPem]).apply(([cert, key]) => [
        { path: certFile, content: cert, mode: 0o644, owner },
        { path: keyFile, content: key, mode: 0o600, owner },
      ]),
    );
  }
  const caFile = s.databaseCaFile;
  return caFile ? tls.caCertPem.apply((ca) => [{ path: caFile, content: ca, mode: 0o644 }]) : undefined;
}
