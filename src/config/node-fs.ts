import { readdirSync, realpathSync, statSync } from "node:fs";
import type { ConfigFs } from "./types.js";

/** The real file system, answering undefined instead of throwing. */
export const nodeConfigFs: ConfigFs = {
  stat(path) {
    try {
      const st = statSync(path);
      return { isDirectory: st.isDirectory(), isFile: st.isFile() };
    } catch {
      return undefined;
    }
  },
  realpath(path) {
    try {
      return realpathSync(path);
    } catch {
      return undefined;
    }
  },
  readdir(path) {
    try {
      return readdirSync(path);
    } catch {
      return undefined;
    }
  },
};
