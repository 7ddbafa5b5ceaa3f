// The two tools of the scale bench, one interface, each on its own copy of the generated
// project (a change made for one never reaches the other):
//   platform: node [its shebang's flags] dist/bin.js deploy | status --json | validate, on its own file backend
//   compose:  docker-compose up --build --wait | ps | config --quiet, on compose.json
// The cases, per tool: deploy (cold, no change, one service changed), status, validate.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { removeImages } from "../compare/docker.mjs";
import { platformArgs, run } from "../compare/measure.mjs";
import { generateScaleProject } from "./generate.mjs";

/** The set-up's base images as both tools read them (PLATFORM_PYTHON_IMAGE, PLATFORM_NODE_IMAGE). */
const baseEnv = (images) => ({ PLATFORM_PYTHON_IMAGE: images.python, PLATFORM_NODE_IMAGE: images.node });

async function ok(what, r) {
  if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}):\n${r.out.slice(-4000)}`);
  return r;
}

export function platformTool({ root, work, project, count, images, caFile, publicUrls }) {
  const dir = join(work, "platform");
  const generate = (salt) => generateScaleProject(dir, count, { project, images, salt, publicUrls });
  generate();
  mkdirSync(join(work, "state"), { recursive: true });
  const env = {
    ...process.env,
    CI: "true",
    PLATFORM_BACKEND_URL: `file://${work}/state`,
    PLATFORM_PASSPHRASE: "bench",
    ...(caFile ? { PLATFORM_BUILD_CA_FILE: caFile } : {}),
    ...baseEnv(images),
  };
  const cli = (...args) => run(process.execPath, [...platformArgs(root), ...args, "--project", project], { cwd: dir, env });
  return {
    name: "platform",
    dir,
    project,
    generate,
    deploy: async () => ok("platform deploy", await cli("deploy", "--yes")),
    status: async () => ok("platform status", await cli("status", "--json")),
    validate: async () => ok("platform validate", await run(process.execPath, [...platformArgs(root), "validate"], { cwd: dir, env })),
    // A failed destroy is reported (run.mjs logs it): it leaves the database's volumes and the network behind.
    async reset() {
      const r = await cli("destroy", "--yes", "--delete-data");
      await removeImages(`platform/${project}_*`);
      await ok("platform destroy", r);
    },
  };
}

export function composeTool({ work, project, count, images, caFile, composeBin, publicUrls }) {
  const dir = join(work, "compose");
  const generate = (salt) => generateScaleProject(dir, count, { project, images, salt, publicUrls });
  const { composeFile } = generate();
  let up = false;
  let stopped = false;
  const compose = (...args) =>
    run(composeBin, ["-f", composeFile, "-p", project, "--project-directory", dir, ...args], {
      cwd: dir,
      env: { ...process.env, COMPOSE_BAKE: "false", BUILD_CA_FILE: caFile ?? "/dev/null", ...baseEnv(images) },
    });
  const UP = ["up", "--build", "--wait", "--quiet-pull"];
  return {
    name: "compose",
    dir,
    project,
    generate,
    // Its health checks go on after `up` (one exec per container and second): stopped, untimed,
    // while the platform is measured, as bench/compare does; back with the same `up` before its own run.
    async quiesce() {
      if (!up || stopped) return;
      await ok("compose stop", await compose("stop", "--timeout", "5"));
      stopped = true;
    },
    async resume() {
      if (stopped) await ok("compose up", await compose(...UP));
      stopped = false;
    },
    async deploy() {
      const r = await ok("compose up", await compose(...UP));
      up = true;
      return r;
    },
    status: async () => ok("compose ps", await compose("ps", "--all", "--format", "json")),
    validate: async () => ok("compose config", await compose("config", "--quiet")),
    async reset() {
      await compose("down", "--volumes", "--remove-orphans", "--timeout", "5");
      up = stopped = false;
      await removeImages(`${project}-*`);
    },
  };
}
