import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { type CliResult, ok, parseUrls, startPoller, writeBrokenMigration } from "./cli.js";
import { POLL_ROUTE } from "./events.js";

/**
 * What a first deploy of examples/fullstack prints, on any target: the database healthy before
 * the api migrates, the migration before the api is healthy, the api healthy before web starts,
 * then `Deployment complete` and the two public URLs. Returns the URLs.
 */
export function expectFullstackDeployed(stdout: string, project: string): Record<string, string> {
  expectFullstackPhases(stdout);
  const urls = parseUrls(stdout);
  expect(urls.api).toMatch(new RegExp(`^https://${project}-api-[a-z]+-[a-z]+\\.localhost$`));
  expect(urls.web).toMatch(new RegExp(`^https://${project}-web-[a-z]+-[a-z]+\\.localhost$`));
  expect(urls.database).toBeUndefined();
  return urls;
}

/** The phases of a first deploy of examples/fullstack in dependency order, then `Deployment complete`. */
export function expectFullstackPhases(stdout: string): void {
  const lines = stdout.split("\n");
  const at = (needle: string) => lines.indexOf(needle);
  expect(at("database: healthy")).toBeGreaterThanOrEqual(0);
  expect(at("api: migrated")).toBeGreaterThan(at("database: healthy"));
  expect(at("api: healthy")).toBeGreaterThan(at("api: migrated"));
  expect(at("web: starting")).toBeGreaterThan(at("api: healthy"));
  expect(stdout).toMatch(/^Deployment complete \(dep_[a-z0-9]+\)$/m);
}

/**
 * Deploys examples/fullstack (copied to `dir`) with a migration that fails, while the API is
 * polled through the edge: the deploy's result and what the poller saw. The broken migration is
 * removed again afterwards.
 */
export async function deployWithBrokenMigration(dir: string, apiUrl: string, ca: string, deploy: () => Promise<CliResult>) {
  const broken = writeBrokenMigration(join(dir, "api"));
  const poll = startPoller(`${apiUrl}${POLL_ROUTE}`, ca);
  const r = await deploy();
  const stats = await poll.stop();
  rmSync(broken);
  return { r, stats };
}

/**
 * A change to the API's code deployed while the API is polled through the edge, on any target:
 * no request fails, the API is replaced and the database and web are not. `running` says what
 * runs a service (a container id, the names of its pods). Returns the deploy and the poller's counts.
 */
export async function expectApiRolledOutUnderLoad(
  dir: string,
  apiUrl: string,
  ca: string,
  deploy: () => Promise<CliResult>,
  running: (service: string) => unknown,
) {
  const [api, web, db] = ["api", "web", "database"].map(running);
  writeFileSync(join(dir, "api", "app", "version.txt"), "v2\n");
  const poll = startPoller(`${apiUrl}${POLL_ROUTE}`, ca);
  const r = ok(await deploy());
  const stats = await poll.stop();
  expect(stats.failures).toEqual([]);
  expect(stats.sent).toBeGreaterThan(20);
  expect(running("api")).not.toEqual(api);
  expect([running("web"), running("database")]).toEqual([web, db]);
  expect(r.stdout).toContain("web: unchanged");
  return { r, stats };
}
