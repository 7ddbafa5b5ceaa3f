import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { homePaths } from "../../src/home/layout.js";
import { verifySignature } from "../../src/notify/sign.js";
import { ok, runCli, startCli } from "./helpers/cli.js";
import { freePort } from "./helpers/env.js";
import { fixtureApp } from "./helpers/fixture-app.js";
import { type Received, startSmtpServer, startWebhookReceiver } from "./helpers/notify-receivers.js";

/**
 * Issue 47 item 3, the part the CLI sends (the agent sends the rest): platform.yml's notify:
 * channels, a webhook (signed JSON, checked here as a receiver would) and e-mail through an SMTP
 * server that requires STARTTLS and a login (smtp-server on 127.0.0.1). `platform notify test`
 * tries each one; a failed deployment sends one deploy_failed naming the service, however often
 * it fails again, and the next good deploy sends its resolution. A channel that fails is said
 * and changes no outcome; no secret reaches the output.
 */
const { project, dir, backend, cli } = fixtureApp("whoami", "ntfy");
const SMTP_USER = "ops";
const SMTP_PASSWORD = `smtp-${Math.random().toString(36).slice(2)}`;
let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let key = "";

/** An api that exits at start: the deploy fails on it. */
const EXIT_3 = '["sh", "-c", "exit 3"]';

/** The fixture's platform.yml with these notify: lines (and the api's start, to make it fail). */
function writeConfig(notify: string, start?: string): void {
  const file = join(dir, "platform.yml");
  const base = readFileSync(file, "utf8")
    .replace(/\nnotify:\n(?: {2}.*\n)+/, "\n")
    .replace(/\n {4}start: .*\n/, "\n");
  const withStart = start ? base.replace("    source: ./api\n", `    source: ./api\n    start: ${start}\n`) : base;
  writeFileSync(file, withStart.replace("\nservices:\n", `\nnotify:\n${notify}services:\n`));
}
const both = () =>
  `  - webhook: ${hook.url}\n  - email:\n      to: ops@example.com\n      smtp: ${smtp.url}\n      user: ${SMTP_USER}\n      password: \${secrets.SMTP_PASSWORD}\n`;
/** The CLI on the project, trusting the SMTP server's own certificate (as a company CA would be trusted). */
const run = (args: string[], input?: string) =>
  runCli([...args, "--project", project], { cwd: dir, env: { ...backend, NODE_EXTRA_CA_CERTS: smtp.caFile }, ...(input ? { input } : {}) });
const signed = (r: Received) => verifySignature(r.raw, String(r.headers["x-platform-signature"]), key);

describe("notify: webhooks and e-mail (platform notify test, deploy_failed)", () => {
  beforeAll(async () => {
    hook = await startWebhookReceiver();
    smtp = await startSmtpServer(SMTP_USER, SMTP_PASSWORD);
    key = ok(await cli("notify", "key", "--project", project)).stdout.trim();
  });
  afterAll(async () => {
    await hook?.stop();
    await smtp?.stop();
  });

  it("platform notify test: a signed JSON message to the webhook, an e-mail over STARTTLS with the secret password; exit 0", async () => {
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    ok(await run(["secrets", "set", "SMTP_PASSWORD", "--yes"], SMTP_PASSWORD));
    writeConfig(both());
    const r = ok(await run(["notify", "test"]));
    expect(r.stdout).toMatch(/^✓ http:\/\/127\.0\.0\.1:\d+: sent \(id \S+\)$/m);
    expect(r.stdout).toMatch(/^✓ mailto:ops@example\.com: sent/m);
    expect(hook.got).toHaveLength(1);
    const [m] = hook.got;
    expect(signed(m!)).toBe(true);
    expect(m!.body).toMatchObject({ event: "test", resolved: false, project, environment: "preview", command: "platform status" });
    expect(String(m!.body.text)).toContain(project);
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]!.to).toEqual(["ops@example.com"]);
    expect(smtp.mails[0]!.raw).toMatch(new RegExp(`^Subject: test in ${project} \\(preview\\)`, "m"));
    expect(`${r.stdout}${r.stderr}`).not.toContain(SMTP_PASSWORD);
  }, 120_000);

  it("a wrong SMTP password and an unreachable webhook: each said with its cause, exit 1; the good channel still gets its message", async () => {
    const closed = await freePort();
    ok(await run(["secrets", "set", "SMTP_PASSWORD"], "not-the-password"));
    writeConfig(`${both()}  - webhook: http://127.0.0.1:${closed}/nobody-here\n`);
    const before = hook.got.length;
    const r = await run(["notify", "test"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^✖ mailto:ops@example\.com: Invalid login: .*\(3 tries\)$/m);
    expect(r.stdout).toMatch(
      new RegExp(`^✖ http://127\\.0\\.0\\.1:${closed}: fetch failed: connect ECONNREFUSED 127\\.0\\.0\\.1:${closed} \\(3 tries\\)$`, "m"),
    );
    expect(r.stdout).toMatch(/^✓ http:\/\/127\.0\.0\.1:\d+: sent/m);
    expect(hook.got.length).toBe(before + 1);
    expect(`${r.stdout}${r.stderr}`).not.toContain("not-the-password");
    ok(await run(["secrets", "set", "SMTP_PASSWORD"], SMTP_PASSWORD));
  }, 120_000);

  it("a failed deploy sends one signed deploy_failed naming the service, however often it fails; the next good deploy sends its resolution", async () => {
    writeConfig(both(), EXIT_3);
    const mails = smtp.mails.length;
    const from = hook.got.length;
    for (const _ of [1, 2]) {
      const r = await run(["deploy", "--yes"]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/api-\S+ exited with code 3 before it was healthy/);
    }
    const failed = hook.got.slice(from);
    expect(failed.map((m) => [m.body.event, m.body.resolved, m.body.service])).toEqual([["deploy_failed", false, "api"]]);
    expect(signed(failed[0]!)).toBe(true);
    expect(String(failed[0]!.body.message)).toMatch(/^deployment dep_\S+ failed \(api/);
    expect(smtp.mails.length).toBe(mails + 1);
    expect(smtp.mails.at(-1)!.raw).toMatch(new RegExp(`^Subject: deploy_failed in ${project} \\(preview\\): api`, "m"));

    writeConfig(both());
    const good = ok(await run(["deploy", "--yes"]));
    expect(good.stderr).toMatch(/notify: deploy_failed resolved sent to http:\/\/127\.0\.0\.1:\d+/);
    const resolved = hook.got.slice(from + 1);
    expect(resolved.map((m) => [m.body.event, m.body.resolved, m.body.service, m.body.since])).toEqual([
      ["deploy_failed", true, "api", failed[0]!.body.since],
    ]);
    expect(signed(resolved[0]!)).toBe(true);
    expect(smtp.mails.at(-1)!.raw).toMatch(/^Subject: Resolved: deploy_failed in /m);
    // a good deploy with nothing open says nothing
    ok(await run(["deploy", "--yes"]));
    expect(hook.got.length).toBe(from + 2);
  }, 900_000);

  it("a channel that fails never changes a deploy's outcome: said, and the exit code is the deploy's", async () => {
    writeConfig(`  - webhook: ${hook.url}\n`, EXIT_3);
    hook.failWith(500);
    try {
      const r = await run(["deploy", "--yes"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/⚠ notify: deploy_failed to http:\/\/127\.0\.0\.1:\d+ failed after 3 tries: HTTP 500/);
    } finally {
      hook.failWith(200);
    }
    writeConfig(`  - webhook: ${hook.url}\n`);
    ok(await run(["deploy", "--yes"]));
  }, 900_000);

  it("scheduled backups that fail send one backup_failed naming the database; the next that works sends its resolution", async () => {
    writeConfig(`  - webhook: ${hook.url}\n`);
    const file = join(dir, "platform.yml");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace("    type: postgres\n", '    type: postgres\n    backup: {schedule: "* * * * *"}\n'),
    );
    ok(await run(["deploy", "--yes"]));
    const from = hook.got.length;
    // A bucket nobody listens on: each backup is made here, and fails at its upload.
    const bucket = {
      PLATFORM_BACKUP_S3: `http://127.0.0.1:${await freePort()}/team`,
      PLATFORM_BACKUP_S3_ACCESS_KEY: "k",
      PLATFORM_BACKUP_S3_SECRET_KEY: "s",
    };
    const scheduler = (more: Record<string, string>) =>
      startCli(["db", "scheduler", "--project", project], { cwd: dir, env: { ...backend, ...more } });
    const failing = scheduler(bucket);
    try {
      await failing.waitFor(/db: notify: backup_failed sent to http:\/\/127\.0\.0\.1:\d+/);
    } finally {
      failing.child.kill("SIGTERM");
      await failing.done;
    }
    const working = scheduler({});
    try {
      await working.waitFor(/db: notify: backup_failed resolved sent to http:\/\/127\.0\.0\.1:\d+/);
    } finally {
      working.child.kill("SIGTERM");
      await working.done;
    }
    const got = hook.got.slice(from);
    expect(got.map((m) => [m.body.event, m.body.resolved, m.body.service])).toEqual([
      ["backup_failed", false, "db"],
      ["backup_failed", true, "db"],
    ]);
    expect(String(got[0]!.body.message)).toMatch(/^the scheduled backup failed: backup db-\S+ of db is kept in .+, but /);
    expect(got[0]!.body.command).toBe(`platform db backups db --project ${project}`);
    expect(got.every(signed)).toBe(true);
  }, 600_000);

  it("an environment removed when its --expires passed sends environment_expired, signed, naming it", async () => {
    writeConfig(`  - webhook: ${hook.url}\n`);
    ok(await run(["deploy", "--yes", "--env", "pr1", "--expires", "2h"]));
    // The clock moves on: the record now says it expired a minute ago.
    const file = join(homePaths.expiryDir(project), "pr1.json");
    writeFileSync(
      file,
      JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), expiresAt: new Date(Date.now() - 60_000).toISOString() }),
    );
    const from = hook.got.length;
    const r = ok(await run(["status"]));
    expect(r.stderr).toMatch(/→ pr1 of \S+ expired .*: removed with its data/);
    expect(r.stderr).toMatch(/→ notify: environment_expired sent to http:\/\/127\.0\.0\.1:\d+/);
    const got = hook.got.slice(from);
    expect(got.map((m) => [m.body.event, m.body.environment, m.body.project])).toEqual([["environment_expired", "pr1", project]]);
    expect(String(got[0]!.body.message)).toBe("pr1 expired (deploy --expires 2h) and was removed with its data");
    expect(signed(got[0]!)).toBe(true);
  }, 900_000);
});
