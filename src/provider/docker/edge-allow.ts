import { docker, execInContainer, unlessGone } from "../../docker-client.js";
import { edgeContainer } from "./edge-config.js";
import { DOMAIN_LABEL_PREFIX, PUBLIC_HOST_LABEL } from "./ownership.js";

/** In the edge's data volume: one empty file per host the public edge may get a certificate for. */
export const ALLOWED_DIR = "/data/allowed";

/**
 * Writes the public edge's allow-list from the labels of the public containers on this engine:
 * each one's host label (`<project>-<service>-<word>-<word>`) and custom domains. The edge's
 * on-demand guard answers yes only for names in it (edge-public-config.ts), so a stranger's name
 * is refused without any DNS lookup. New names are added before stale ones are removed, so a
 * host that stays is never missing. The local edge needs none (its CA is its own).
 */
export async function syncEdgeAllowList(): Promise<void> {
  const edge = await unlessGone(() => docker().getContainer(edgeContainer()).inspect());
  if (!edge?.State.Running || edge.Config.Labels?.["platform.edge-mode"] !== "public") return;
  const list = await docker().listContainers({ all: true, filters: { label: ["platform.service"] } });
  const names = new Set<string>();
  for (const c of list) {
    const label = c.Labels?.[PUBLIC_HOST_LABEL];
    if (label) names.add(label);
    for (const k of Object.keys(c.Labels ?? {})) if (k.startsWith(DOMAIN_LABEL_PREFIX)) names.add(k.slice(DOMAIN_LABEL_PREFIX.length));
  }
  // Names are DNS names (labels and domains the config rules checked): no path separators.
  const script = `mkdir -p ${ALLOWED_DIR} && cd ${ALLOWED_DIR} && for n in "$@"; do : > "$n"; done && for f in *; do [ -e "$f" ] || continue; keep=; for n in "$@"; do [ "$n" = "$f" ] && keep=1; done; [ -n "$keep" ] || rm -f -- "$f"; done`;
  const r = await execInContainer(docker(), edge.Id, ["sh", "-c", script, "sh", ...[...names].filter((n) => /^[a-z0-9.-]+$/.test(n))]);
  if (r.exitCode !== 0) throw new Error(`the public edge's list of hosts could not be written (exit ${r.exitCode}): ${r.output.trim()}`);
}
