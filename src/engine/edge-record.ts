import { mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { homePaths } from "../home/layout.js";
import { edgeContainer } from "../plan/constants.js";
import type { EdgeSettings } from "../plan/settings.js";
import type { PublicEdge } from "../plan/types.js";

/**
 * The edge mode chosen for one Docker engine (and edge name), remembered in the platform home:
 * the edge is one container shared by every application on the engine, so its mode, domain and
 * ports are the engine's, not a stack's. A deploy that chooses a mode (PLATFORM_EDGE, --edge)
 * writes it; later deploys, `plan`, `status` and `doctor` read it.
 */
export interface EdgeRecord {
  readonly mode: "local" | "public";
  readonly appsDomain?: string;
  readonly httpsPort?: number;
  readonly publicEdge?: PublicEdge;
  readonly chosenAt: string;
}

/** One record per engine and edge: DOCKER_HOST names the engine (the local socket when unset). */
function recordFile(): string {
  return homePaths.edgeRecord(edgeContainer(), process.env.DOCKER_HOST || "local");
}

export function readEdgeRecord(): EdgeRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(recordFile(), "utf8")) as EdgeRecord;
    return r.mode === "local" || r.mode === "public" ? r : undefined;
  } catch {
    return undefined;
  }
}

function writeEdgeRecord(r: EdgeRecord): void {
  mkdirSync(dirname(recordFile()), { recursive: true, mode: 0o700 });
  writeFileAtomic.sync(recordFile(), `${JSON.stringify(r, null, 2)}\n`, { mode: 0o600 });
}

/**
 * The edge settings of a deploy (or a plan): a mode chosen now wins and, when `remember`, is
 * kept for the engine; otherwise the engine's remembered mode, with any flag given now over it.
 * With neither, the settings are the flags alone (the stack's kept domain and port, else the
 * local defaults, fill the rest).
 */
export function resolveEdgeSettings(flags: EdgeSettings, remember: boolean): EdgeSettings {
  if (flags.publicEdge !== undefined) {
    if (remember) {
      writeEdgeRecord({
        mode: flags.publicEdge ? "public" : "local",
        ...(flags.appsDomain !== undefined ? { appsDomain: flags.appsDomain } : {}),
        ...(flags.httpsPort !== undefined ? { httpsPort: flags.httpsPort } : {}),
        ...(flags.publicEdge ? { publicEdge: flags.publicEdge } : {}),
        chosenAt: new Date().toISOString(),
      });
    }
    return flags;
  }
  const r = readEdgeRecord();
  if (!r) return flags;
  return {
    ...(r.appsDomain !== undefined ? { appsDomain: r.appsDomain } : {}),
    ...(r.httpsPort !== undefined ? { httpsPort: r.httpsPort } : {}),
    ...flags,
    publicEdge: r.publicEdge ?? null,
  };
}
