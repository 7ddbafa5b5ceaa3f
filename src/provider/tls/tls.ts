import { randomBytes } from "node:crypto";
import type { ResourceHandler } from "../handler.js";
import { asSecret } from "../wire.js";
import { TLS_DEFAULTS as DEFAULTS, isNearExpiry } from "./renewal.js";

/**
 * platform:tls:CertificateAuthority and platform:tls:ServerCertificate: made once per stack and
 * kept in its (encrypted) state like the database password, the private keys as secrets. A
 * deploy renews one that ends within its `renewBeforeDays`: the diff replaces it (forceReplace
 * reads the stored end), and what uses it (the database container, the apps that trust the CA)
 * is replaced with it. node-forge (certificates.ts) loads only when one is made.
 */

/** Read returns nothing new: the stored outputs stay as they are, the keys wrapped as secrets. */
async function keep(): Promise<Record<string, unknown>> {
  return {};
}

export const certificateAuthorityHandler: ResourceHandler = {
  inputKeys: ["commonName", "validityDays"],
  forceReplace: (olds) => (isNearExpiry(olds.notAfter, Number(olds.renewBeforeDays ?? DEFAULTS.caRenewBeforeDays)) ? ["notAfter"] : []),
  async create(_urn, inputs) {
    const { createCertificateAuthority } = await import("./certificates.js");
    const ca = createCertificateAuthority(String(inputs.commonName), Number(inputs.validityDays ?? DEFAULTS.caValidityDays));
    return { id: randomBytes(8).toString("hex"), outs: { certPem: ca.certPem, keyPem: asSecret(ca.keyPem), notAfter: ca.notAfter } };
  },
  read: keep,
  async delete() {},
};

export const serverCertificateHandler: ResourceHandler = {
  // A new CA (its certificate) or another set of host names makes a new certificate.
  inputKeys: ["caCertPem", "hosts", "validityDays"],
  forceReplace: (olds) => (isNearExpiry(olds.notAfter, Number(olds.renewBeforeDays ?? DEFAULTS.serverRenewBeforeDays)) ? ["notAfter"] : []),
  async create(_urn, inputs) {
    const { createServerCertificate } = await import("./certificates.js");
    const cert = createServerCertificate(
      { certPem: String(inputs.caCertPem), keyPem: String(inputs.caKeyPem) },
      inputs.hosts as string[],
      Number(inputs.validityDays ?? DEFAULTS.serverValidityDays),
    );
    return { id: randomBytes(8).toString("hex"), outs: { certPem: cert.certPem, keyPem: asSecret(cert.keyPem), notAfter: cert.notAfter } };
  },
  read: keep,
  async delete() {},
};

export { DEFAULTS as TLS_DEFAULTS };
