import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, chmodSync, mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/env.js";
import { baseImages } from "../../src/home/images.js";

/** The set-up's failures say what to do: run its steps in a bare environment. */
function step(fn: string, env: Record<string, string>, pre = ""): { code: number; out: string } {
  const home = mkdtempSync(join(tmpdir(), "platform-setup-"));
  const script = `set -euo pipefail; REPO_ROOT=${ROOT}; source scripts/setup/lib.sh; for f in node docker pulumi project images; do source scripts/setup/$f.sh; done; ${pre} step "under test" ${fn}`;
  const r = spawnSync("bash", ["-c", script], {
    cwd: ROOT,
    env: { HOME: home, PLATFORM_HOME: join(home, ".platform"), PLATFORM_PULUMI_INSTALLER: "never", ...env },
    encoding: "utf8",
  });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

describe("set-up failures", () => {
  // The Go the build needs is its modules' go directive (the highest): with GOTOOLCHAIN=local an
  // older Go refuses them, so the hint must name that version, not an older one.
  const goNeeded = ["pulumi", "pulumi-language-nodejs"]
    .map((m) => /^go (\S+)$/m.exec(readFileSync(join(ROOT, "scripts", "setup", "go", m, "go.mod"), "utf8"))?.[1] ?? "")
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
    .at(-1);
  const hint = `Install Go >= ${goNeeded} (the go directive of scripts/setup/go/pulumi/go.mod; the set-up builds with GOTOOLCHAIN=local`;

  it("Go missing when Pulumi must be built: says which Go to get, or Pulumi", () => {
    const r = step("setup_pulumi", { PATH: "/usr/bin:/bin" });
    expect(r.code).toBe(1);
    expect(r.out).toContain("Go is missing");
    expect(r.out).toContain(hint);
    expect(r.out).toContain("official installer");
  });

  it("a Go older than the modules' go directive: says so, and which Go to get", () => {
    const bin = mkdtempSync(join(tmpdir(), "fake-go-"));
    writeFileSync(join(bin, "go"), '#!/bin/sh\n[ "$1 $2" = "env GOVERSION" ] && echo go1.22.2\n');
    chmodSync(join(bin, "go"), 0o755);
    const r = step("setup_pulumi", { PATH: `${bin}:/usr/bin:/bin` });
    expect(r.code).toBe(1);
    expect(r.out).toContain("cannot be built with this machine's Go 1.22.2");
    expect(r.out).toContain(hint);
  });

  it("a full disk: says how much is free and what to clean", () => {
    const r = step("need_space", { PATH: "/usr/bin:/bin" }, "need_space() { check_disk 999999999 /tmp; };");
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/only \d+ MB free .* needs about 999999999 MB/);
    expect(r.out).toContain("docker system prune");
  });

  it("dockerd that cannot start: fails fast with its last log lines", () => {
    const bin = mkdtempSync(join(tmpdir(), "fake-dockerd-"));
    writeFileSync(
      join(bin, "dockerd"),
      "#!/bin/sh\necho 'failed to start daemon: pid file found, ensure docker is not running' >&2\nexit 1\n",
    );
    chmodSync(join(bin, "dockerd"), 0o755);
    mkdirSync(join(bin, "sock"));
    const t0 = Date.now();
    const r = step("setup_docker", { PATH: `${bin}:/usr/bin:/bin`, DOCKER_HOST: `unix://${bin}/sock/docker.sock` });
    expect(r.code).toBe(1);
    expect(r.out).toContain("dockerd did not start");
    expect(r.out).toContain("pid file found");
    expect(Date.now() - t0).toBeLessThan(20_000);
  });
});

describe("set-up: the telemetry receiver image", () => {
  it("is built (or reused) offline from this install, on the Node base image, and named by its hash", () => {
    const r = step("setup_telemetry_image", {
      PATH: "/usr/bin:/bin",
      NODE_BIN: dirname(process.execPath),
      PLATFORM_DOCKER_CLI: process.env.PLATFORM_DOCKER_CLI || "/usr/bin/docker",
      PLATFORM_NODE_IMAGE: baseImages().node,
    });
    expect(r.out).toMatch(/✓ under test: (built|reused) platform-local\/telemetry:[0-9a-f]{12} in /);
    expect(r.code).toBe(0);
  }, 120_000);
});
