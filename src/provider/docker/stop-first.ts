import { docker, isNotFound } from "../../docker-client.js";
import { type HealthCheck, waitHealthy } from "./health.js";
import { describeOwner, type Labels, sameOwner, SERVICE_KEYS } from "./ownership.js";

/**
 * Replacing a stop-first container (PostgreSQL): never two servers on one data volume, and a
 * failed replacement puts the previous server back. The create does it all, not Pulumi's
 * delete-before-replace: that deletes the old container before the new one has proven it
 * can start, and nothing is left to fall back on. Here the old one is only stopped; once the
 * new one is healthy, the engine's normal delete of the old resource removes it.
 */
export interface VolumeHolder {
  readonly id: string;
  readonly name: string;
  readonly labels: Labels;
  readonly running: boolean;
  readonly volume: string;
}

/** Pure: the holders that are this service's own (to stop), and the running ones that are not (to refuse). */
export function sortHolders(holders: readonly VolumeHolder[], labels: Labels): { own: VolumeHolder[]; foreign: VolumeHolder[] } {
  const own = holders.filter((h) => sameOwner(h.labels, labels, SERVICE_KEYS));
  return { own, foreign: holders.filter((h) => h.running && !own.includes(h)) };
}

export function foreignHolderMessage(h: VolumeHolder, labels: Labels): string {
  return (
    `volume "${h.volume}" is in use by the running container ${h.name} (${describeOwner(h.labels, SERVICE_KEYS)}), not by this database ` +
    `(${describeOwner(labels, SERVICE_KEYS)}): two PostgreSQL servers must never share a data directory. ` +
    `Stop that container (docker stop ${h.name}) if it should not run, then deploy again.`
  );
}

async function listHolders(volumes: readonly string[]): Promise<VolumeHolder[]> {
  const byId = new Map<string, VolumeHolder>();
  for (const volume of volumes) {
    for (const c of await docker().listContainers({ all: true, filters: { volume: [volume] } })) {
      byId.set(c.Id, { id: c.Id, name: c.Names[0]?.replace(/^\//, "") ?? c.Id, labels: c.Labels, running: c.State === "running", volume });
    }
  }
  return [...byId.values()];
}

/**
 * Refuses when another stack's (or a hand-made) container runs on the volumes, then stops
 * this service's previous containers gracefully. Returns those that were running: the ones
 * to start again if the new container fails.
 */
export async function stopPrevious(volumes: readonly string[], labels: Labels, graceSeconds: number): Promise<VolumeHolder[]> {
  const { own, foreign } = sortHolders(await listHolders(volumes), labels);
  if (foreign[0]) throw new Error(foreignHolderMessage(foreign[0], labels));
  const running = own.filter((h) => h.running);
  for (const h of running) {
    try {
      await docker().getContainer(h.id).stop({ t: graceSeconds });
    } catch (e) {
      if (!isNotFound(e) && (e as { statusCode?: number }).statusCode !== 304) throw e;
    }
  }
  return running;
}

/** After a failed replacement: the previous containers start again; the sentence that says how it went. */
export async function restartPrevious(stopped: readonly VolumeHolder[], check: HealthCheck, timeoutSeconds: number): Promise<string> {
  const names = stopped.map((h) => h.name).join(", ");
  try {
    for (const h of stopped) {
      await docker()
        .getContainer(h.id)
        .start()
        .catch((e: { statusCode?: number }) => {
          if (e.statusCode !== 304) throw e;
        });
      await waitHealthy(h.id, check, timeoutSeconds, `previous database container ${h.name}`);
    }
    return `The new container was removed, and the previous database container was restarted and serves again (${names}).`;
  } catch (e) {
    return (
      `The database is STOPPED: the previous database container (${names}) could not be restarted: ${(e as Error).message}\n` +
      "The next deploy starts it again (fix the cause above first)."
    );
  }
}
