import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

/** @type {import("next").NextConfig} */
const nextConfig = {
  // A self-contained server (server.js + only the node_modules it uses): small images.
  output: "standalone",
  // Trace files from this directory, not from a parent that happens to hold a lockfile
  // (this example lives inside the platform's repository), so server.js lands at the top
  // of .next/standalone.
  outputFileTracingRoot: dirname(fileURLToPath(import.meta.url)),
  poweredByHeader: false,
};

export default nextConfig;
