import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// Built at set-up into dist/studio-ui, which the Studio server (dist/studio) serves.
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL("../dist/studio-ui", import.meta.url)),
    emptyOutDir: true,
    chunkSizeWarningLimit: 800,
  },
  logLevel: "warn",
});
