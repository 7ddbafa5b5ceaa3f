import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Credentials } from "../../src/engine/credentials.js";
import { stackSettingsFile } from "../../src/engine/stack-settings.js";
import { setSecret } from "../../src/engine/secrets.js";
import { openStack } from "../../src/engine/workspace.js";
import { VisibleError } from "../../src/errors.js";
import { runCli } from "./helpers/cli.js";
import { forgetProject, freshBackend, requireToolchain, unique } from "./helpers/env.js";

/**
 * The passphrase that does not fit. An environment whose settings file in the workspace was written for a stack of another
 * backend and passphrase (a second login, CI variables, a helper's state): the real Pulumi CLI
 * refuses to create the stack ("incorrect passphrase"), and the platform says which file, why,
 * and how out, instead of an internal error.
 */
const project = unique("stale");
afterAll(() => forgetProject(project));

function creds(passphrase: string): Credentials {
  return { backendUrl: freshBackend().PLATFORM_BACKEND_URL!, passphrase, user: "test", createdAt: "", source: "env" };
}

describe("a workspace's settings file from another backend and passphrase", () => {
  it("is a clear error naming the file, not an internal one", async () => {
    requireToolchain();
    await openStack(project, "preview", creds("first-passphrase"));
    const err = await openStack(project, "preview", creds("second-passphrase")).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(VisibleError);
    expect((err as VisibleError).message).toContain(stackSettingsFile(project, "preview"));
    expect((err as VisibleError).message).toMatch(
      /encrypted with another passphrase than this login's, for a stack the backend file:\/\/\S+ does not hold/,
    );
    expect((err as VisibleError).details.join("\n")).toMatch(/move that file away/);
  }, 120_000);

  it("an existing stack deployed with another passphrase: a clear error, exit 4, nothing created", async () => {
    const made = creds("right-passphrase");
    await setSecret(project, "other", made, "API_KEY", "s3cret-value");
    const dir = mkdtempSync(join(tmpdir(), "platform-stale-"));
    writeFileSync(join(dir, "platform.yml"), `version: "1.0"\nname: ${project}\nservices:\n  db:\n    type: postgres\n`);
    const r = await runCli(["deploy", "--yes", "--project", project, "--env", "other"], {
      cwd: dir,
      env: { PLATFORM_BACKEND_URL: made.backendUrl, PLATFORM_PASSPHRASE: "wrong-passphrase" },
    });
    expect(r.stderr).toMatch(new RegExp(`^✖ ${project} \\(other\\): this login's passphrase`, "m"));
    expect(r.stderr).toMatch(
      /this login's passphrase does not decrypt its secrets \(the stack was made with another one\); nothing was changed$/m,
    );
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(4);
    expect(`${r.stdout}${r.stderr}`).not.toContain("s3cret-value");
    expect(
      execFileSync("docker", ["ps", "-aq", "--filter", `label=platform.project=${project}`])
        .toString()
        .trim(),
    ).toBe("");
  }, 120_000);
});
