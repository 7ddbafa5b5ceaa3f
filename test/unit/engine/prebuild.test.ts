import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../../fixtures/temp-home.js";
import { changedImages } from "../../../src/engine/prebuild.js";
import { combineBuildHash, hashBuildInputs } from "../../../src/targets/shared/context-hash.js";
import type { PlannedBuild } from "../../../src/targets/shared/planned-build.js";

const dockerfile = "FROM scratch\nCOPY . /app\n";
const buildArgs = { PLATFORM_PYTHON_IMAGE: "platform-local/python:3.11" };
const envHash = "e".repeat(64);

/** A checkpoint's Image as the provider left it after a build of `context`. */
function built(context: string, extra: Record<string, unknown> = {}) {
  const hash = combineBuildHash(hashBuildInputs({ context, dockerfile, buildArgs }), envHash);
  return {
    urn: "urn:pulumi:preview::app::platform:docker:Image::api-image",
    type: "platform:docker:Image",
    inputs: {
      context,
      dockerfile,
      buildArgs,
      buildEnvHash: envHash,
      buildEnv: {},
      hash,
      tag: `platform/app_api:${hash.slice(0, 12)}`,
      pinned: false,
      ...extra,
    },
  };
}

/** What platform.yml gives api's build now: the same Dockerfile, ignore rules and arguments unless said. */
const now = (context: string, change: Partial<PlannedBuild> = {}) =>
  new Map<string, PlannedBuild>([["api", { context, dockerfile, buildArgs, seenEnv: {}, ...change }]]);

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function context(): string {
  const dir = tempDir("prebuild-");
  dirs.push(dir);
  writeFileSync(join(dir, "main.py"), "print('v1')\n");
  return dir;
}

describe("which images a code change rebuilds, known before the engine", () => {
  it("none while the context gives the hash the image was built with", () => {
    const dir = context();
    expect(changedImages({ resources: [built(dir)] }, now(dir))).toEqual([]);
  });

  it("a changed file: the identity the program will ask for, with the last build's arguments and variables' hash", () => {
    const dir = context();
    const image = built(dir);
    writeFileSync(join(dir, "main.py"), "print('v2')\n");
    const hash = combineBuildHash(hashBuildInputs({ context: dir, dockerfile, buildArgs }), envHash);
    expect(hash).not.toBe(image.inputs.hash);
    const expected = [{ inputs: image.inputs, build: now(dir).get("api"), hash, tag: `platform/app_api:${hash.slice(0, 12)}` }];
    expect(changedImages({ resources: [image] }, now(dir))).toEqual(expected);
    // The arguments' order is not what they are.
    const reordered = Object.fromEntries(Object.entries({ ...buildArgs, A: "1" }).reverse());
    const withA = built(dir, { buildArgs: { ...buildArgs, A: "1" }, hash: image.inputs.hash });
    expect(changedImages({ resources: [withA] }, now(dir, { buildArgs: reordered })).length).toBe(1);
  });

  it("none when platform.yml now gives the build another Dockerfile, ignore rules or arguments, or no build at all", () => {
    const dir = context();
    const image = built(dir);
    writeFileSync(join(dir, "main.py"), "print('v2')\n");
    expect(changedImages({ resources: [image] }, now(dir)).length).toBe(1);
    for (const change of [{ dockerfile: `${dockerfile}USER app\n` }, { dockerignore: "*.md\n" }, { buildArgs: { ...buildArgs, X: "1" } }])
      expect(changedImages({ resources: [image] }, now(dir, change)), JSON.stringify(change)).toEqual([]);
    expect(changedImages({ resources: [image] }, new Map())).toEqual([]);
  });

  it("leaves a rollback's pinned image, a context that is gone and other resources to the engine", () => {
    const dir = context();
    const pinned = built(dir, { pinned: true });
    const goneDir = context();
    const gone = built(goneDir);
    rmSync(goneDir, { recursive: true });
    writeFileSync(join(dir, "main.py"), "print('v2')\n");
    const other = { urn: "urn:pulumi:preview::app::platform:docker:Network::net", type: "platform:docker:Network", inputs: {} };
    expect(changedImages({ resources: [pinned, gone, other] }, new Map([...now(dir), ...now(goneDir)]))).toEqual([]);
  });
});
