import { afterAll, describe, expect, it } from "vitest";
import type { Credentials } from "../../src/engine/credentials.js";
import { stackSettingsFile } from "../../src/engine/stack-settings.js";
import { openStack } from "../../src/engine/workspace.js";
import { VisibleError } from "../../src/errors.js";
import { forgetProject, freshBackend, requireToolchain, unique } from "./env.js";

/**
 * An environment whose settings file in the workspace was written for a stack of another
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
    const err = await openStack(project, "preview", creds("second-passphrase")).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(VisibleError);
    expect((err as VisibleError).message).toContain(stackSettingsFile(project, "preview"));
    expect((err as VisibleError).message).toMatch(/encrypted with another passphrase than this login's, for a stack the backend file:\/\/\S+ does not hold/);
    expect((err as VisibleError).details.join("\n")).toMatch(/move that file away/);
  }, 120_000);
});
