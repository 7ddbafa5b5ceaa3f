// What the first-need step reads: the FROM lines of a Dockerfile, the catalogue's tag -> spec map,
// and images.json's catalogues as baseImages() returns them (a team's own image drops its language's).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { baseImages } from "../../../../src/home/images.js";
import { parseFromImages, toBaseImageSpecs } from "../../../../src/provider/docker/base-images.js";

describe("parseFromImages", () => {
  it("lists the images a Dockerfile starts from, not its own stages", () => {
    const dockerfile = [
      "# a comment: FROM nothing",
      "FROM platform-local/python:3.14-08a5d33fa67a AS build",
      "RUN true",
      "FROM --platform=linux/amd64 platform-local/otel-layer:abc AS opentelemetry",
      "from build as again",
      "FROM platform-local/python:3.14-08a5d33fa67a",
      "COPY --from=build /opt/venv /opt/venv",
    ].join("\n");
    expect(parseFromImages(dockerfile)).toEqual([
      "platform-local/python:3.14-08a5d33fa67a",
      "platform-local/otel-layer:abc",
      "platform-local/python:3.14-08a5d33fa67a",
    ]);
  });
});

describe("toBaseImageSpecs", () => {
  it("maps each catalogue tag to the spec base-image.sh builds", () => {
    const specs = toBaseImageSpecs({
      pythonVersions: { "3.11": "platform-local/python:3.11", "3.14": "platform-local/python:3.14-aaa" },
      nodeVersions: { "24": "platform-local/node:24-bbb" },
    });
    expect([...specs]).toEqual([
      ["platform-local/python:3.11", "python@3.11"],
      ["platform-local/python:3.14-aaa", "python@3.14"],
      ["platform-local/node:24-bbb", "node@24"],
    ]);
  });
});

describe("baseImages: the catalogues of images.json", () => {
  let home: string;
  const saved = { ...process.env };
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "platform-images-home-"));
    process.env.PLATFORM_HOME = home;
    for (const k of ["PLATFORM_PYTHON_IMAGE", "PLATFORM_NODE_IMAGE", "PLATFORM_OTEL_LAYERS"]) delete process.env[k];
    writeFileSync(
      join(home, "images.json"),
      JSON.stringify({
        debian: "platform-local/debian:bookworm",
        python: "platform-local/python:3.11",
        node: "platform-local/node:22",
        postgres: "platform-local/postgres:15",
        caddy: "platform-local/caddy:2.11",
        "python-versions": { "3.11": "platform-local/python:3.11", "3.14": "platform-local/python:3.14-aaa" },
        "node-versions": { "22": "platform-local/node:22", "24": "platform-local/node:24-bbb" },
      }),
    );
  });
  afterEach(() => {
    process.env = { ...saved };
    rmSync(home, { recursive: true, force: true });
  });

  it("reads the roles and both catalogues", () => {
    const images = baseImages();
    expect(images.python).toBe("platform-local/python:3.11");
    expect(images.pythonVersions).toEqual({ "3.11": "platform-local/python:3.11", "3.14": "platform-local/python:3.14-aaa" });
    expect(images.nodeVersions).toEqual({ "22": "platform-local/node:22", "24": "platform-local/node:24-bbb" });
    // The catalogues are not roles: nothing but strings among them.
    const { pythonVersions: _p, nodeVersions: _n, otelLayers: _o, ...roles } = images;
    expect(Object.values(roles).every((v) => typeof v === "string")).toBe(true);
  });

  it("a team's own Python image is the only Python: no catalogue for it", () => {
    process.env.PLATFORM_PYTHON_IMAGE = "registry.example/team/python:3.12";
    const images = baseImages();
    expect(images.python).toBe("registry.example/team/python:3.12");
    expect(images.pythonVersions).toBeUndefined();
    expect(images.nodeVersions?.["24"]).toBe("platform-local/node:24-bbb");
  });
});
