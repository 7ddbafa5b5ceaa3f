// The two tools under test, one interface: each has its own copy of examples/fullstack (so a
// change made for one never reaches the other), deploys it, and is reset to nothing.
//   platform: node [its shebang's flags] dist/bin.js deploy, on its own file backend, project bench-<id>-pf
//   compose:  docker-compose up --build --wait, project bench-compose-<id>, with
//             bench/compare/compose.yml over the example's own compose file
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { containerPids, removeImages } from "./docker.mjs";
import { platformArgs, run, runOk } from "./measure.mjs";

const EXCLUDE = /node_modules|\.next|__pycache__|\.platform/;

export function copyApp(root, dest) {
  cpSync(join(root, "examples", "fullstack"), dest, { recursive: true, filter: (s) => !EXCLUDE.test(s) });
  return dest;
}

/** Edits that the change cases make, the same text in both copies. */
export const edits = {
  api: (dir, n) => appendLine(join(dir, "api", "app", "main.py"), `# bench change ${n}`),
  web: (dir, n) => appendLine(join(dir, "web", "app", "page.js"), `// bench change ${n}`),
};

function appendLine(file, line) {
  writeFileSync(file, `${readFileSync(file, "utf8")}${line}\n`);
}

/** The salted base images of a run, as the variables both tools read (none when not given). */
function baseImageEnv(bases) {
  return Object.fromEntries(
    [
      ["PLATFORM_PYTHON_IMAGE", bases.python],
      ["PLATFORM_NODE_IMAGE", bases.node],
      ["PLATFORM_OTEL_LAYERS", bases.otelLayers?.join(",")],
    ].filter(([, v]) => v),
  );
}

/** The edge container's processes, refreshed once a second (docker top is too slow for each sample). */
export function edgeWatcher(name = "platform-edge") {
  let pids = [];
  const refresh = async () => {
    pids = await containerPids(name);
  };
  const timer = setInterval(refresh, 1000);
  refresh();
  return { pids: () => pids, stop: () => clearInterval(timer) };
}

export function platformTool({ root, work, id, env, caFile, edge }) {
  const dir = copyApp(root, join(work, "platform-app"));
  const project = `bench-${id}-pf`;
  const file = join(dir, "platform.yml");
  // BENCH_ENV: the value the env-change case changes (compose.yml adds the same to api).
  writeFileSync(
    file,
    readFileSync(file, "utf8").replace(
      "      DATABASE_URL: ${database.url}\n",
      '      DATABASE_URL: ${database.url}\n      BENCH_ENV: "0"\n',
    ),
  );
  mkdirSync(join(work, "state"), { recursive: true });
  const baseEnv = {
    ...process.env,
    ...env,
    CI: "true",
    PLATFORM_BACKEND_URL: `file://${work}/state`,
    PLATFORM_PASSPHRASE: "bench",
    PLATFORM_BUILD_CA_FILE: caFile,
  };
  const cli = (args, bases) =>
    run(process.execPath, [...platformArgs(root), ...args, "--project", project], {
      cwd: dir,
      env: { ...baseEnv, ...baseImageEnv(bases) },
      watch: edge.pids,
    });
  return {
    name: "platform",
    dir,
    project,
    setEnv: (v) => writeFileSync(file, readFileSync(file, "utf8").replace(/BENCH_ENV: "[^"]*"/, `BENCH_ENV: "${v}"`)),
    async deploy(bases) {
      const r = await cli(["deploy", "--yes"], bases);
      if (r.code !== 0) throw new Error(`platform deploy failed:\n${r.out.slice(-4000)}`);
      return r;
    },
    async reset(bases) {
      await cli(["destroy", "--yes", "--delete-data"], bases);
      await removeImages(`platform/${project}*`);
    },
  };
}

export function composeTool({ root, work, id, env, caFile, composeBin, images }) {
  const dir = copyApp(root, join(work, "compose-app"));
  const project = `bench-compose-${id}`;
  let benchEnv = "0";
  const files = [
    "-f",
    join(dir, "docker-compose.yml"),
    "-f",
    join(root, "bench", "compare", "compose.yml"),
    "-p",
    project,
    "--project-directory",
    dir,
  ];
  const compose = (args, bases, opts = {}) =>
    run(composeBin, [...files, ...args], {
      cwd: dir,
      ...opts,
      env: {
        ...process.env,
        ...env,
        COMPOSE_BAKE: "false",
        BENCH_PROJECT: project,
        BENCH_ENV: benchEnv,
        BUILD_CA_FILE: caFile,
        ...baseImageEnv(bases),
        POSTGRES_IMAGE: images.postgres,
      },
    });
  let stopped = false;
  const UP = ["up", "--build", "--wait", "--quiet-pull"];
  const composeOk = async (args, bases) => {
    const r = await compose(args, bases);
    if (r.code !== 0) throw new Error(`docker compose ${args[0]} failed:\n${r.out.slice(-4000)}`);
  };
  return {
    name: "compose",
    dir,
    project,
    setEnv: (v) => {
      benchEnv = String(v);
    },
    // Its health checks (every 0.5 s, compose.yml: a python and a node process exec'd into the
    // containers) go on after `up`, about a third of a core on 2 cores, which slowed the
    // platform's no-op by 0.38 s (measured). Stopped, untimed, while the other tool is measured,
    // and back (untimed) before compose's own run. The platform's idle stack runs nothing.
    async quiesce(bases) {
      await composeOk(["stop", "--timeout", "5"], bases);
      stopped = true;
    },
    // Back as after its own last run: the same `up` (a bare `up --wait` left the next timed no-op 2.4 s slower).
    async resume(bases) {
      if (stopped) await composeOk(UP, bases);
      stopped = false;
    },
    async deploy(bases) {
      const r = await compose(UP, bases);
      if (r.code !== 0) throw new Error(`docker compose up failed:\n${r.out.slice(-4000)}`);
      return r;
    },
    async reset(bases) {
      await compose(["down", "--volumes", "--remove-orphans", "--timeout", "5"], bases);
      stopped = false;
      await removeImages(`${project}-*`);
    },
    version: () => runOk(composeBin, ["version", "--short"]).then((r) => r.out.trim()),
  };
}
