import { generateKeyPairSync, randomBytes } from "node:crypto";
import forge from "node-forge";

/**
 * The certificates of a stack's databases: one CA per stack, and per database a server
 * certificate that names the host names the stack's services reach it by. Node makes the keys
 * (RSA, as every Postgres client reads them); node-forge writes the X.509 certificates, which
 * Node cannot. Pure apart from the keys' and serials' randomness and `now`.
 */
export interface KeyAndCertificate {
  readonly certPem: string;
  /** PKCS#8 PEM; a secret wherever it goes. */
  readonly keyPem: string;
  /** ISO time the certificate stops being valid. */
  readonly notAfter: string;
}

const DAY_MS = 86_400_000;
/** Backdated a little: a container clock a minute behind the host's must not see a future certificate. */
const BACKDATE_MS = 60 * 60 * 1000;

function rsaKeys(bits: number): { publicKey: forge.pki.rsa.PublicKey; privateKey: forge.pki.rsa.PrivateKey; keyPem: string } {
  const { privateKey } = generateKeyPairSync("rsa", {
    modulusLength: bits,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  const priv = forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
  return { privateKey: priv, publicKey: forge.pki.setRsaPublicKey(priv.n, priv.e), keyPem: privateKey };
}

/** A positive serial of 16 random bytes (RFC 5280: at most 20 octets, non-negative). */
function serial(): string {
  const b = randomBytes(16);
  b[0] = (b[0] as number) & 0x7f;
  return b.toString("hex");
}

function newCertificate(publicKey: forge.pki.PublicKey, now: Date, validityDays: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(now.getTime() - BACKDATE_MS);
  cert.validity.notAfter = new Date(now.getTime() + validityDays * DAY_MS);
  return cert;
}

/** A self-signed CA that signs server certificates only (path length 0). */
export function createCertificateAuthority(commonName: string, validityDays: number, now = new Date()): KeyAndCertificate {
  const keys = rsaKeys(3072);
  const cert = newCertificate(keys.publicKey, now, validityDays);
  const subject = [
    { name: "commonName", value: commonName },
    { name: "organizationName", value: "platform" },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: "basicConstraints", cA: true, pathLenConstraint: 0, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.keyPem, notAfter: cert.validity.notAfter.toISOString() };
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** A server certificate signed by the CA, naming each host (DNS names and IPv4 addresses) in its subjectAltName. */
export function createServerCertificate(
  ca: { readonly certPem: string; readonly keyPem: string },
  hosts: readonly string[],
  validityDays: number,
  now = new Date(),
): KeyAndCertificate {
  if (hosts.length === 0) throw new Error("a server certificate needs at least one host name");
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const caKey = forge.pki.privateKeyFromPem(ca.keyPem);
  const keys = rsaKeys(2048);
  const cert = newCertificate(keys.publicKey, now, validityDays);
  cert.setSubject([{ name: "commonName", value: hosts[0] as string }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: "basicConstraints", cA: false, critical: true },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    { name: "subjectAltName", altNames: hosts.map((h) => (IPV4.test(h) ? { type: 7, ip: h } : { type: 2, value: h })) },
    { name: "subjectKeyIdentifier" },
    { name: "authorityKeyIdentifier", keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.keyPem, notAfter: cert.validity.notAfter.toISOString() };
}

export { isNearExpiry } from "./renewal.js";
