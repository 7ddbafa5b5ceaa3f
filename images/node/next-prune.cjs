// Dev dependencies pruned after next build, unless next start then cannot load next.config
// (see src/plan/recipes/next-build-scripts.ts). The generated Next.js Dockerfile runs:
//   node next-prune.cjs '<prune command>' '<install command>'
//
// `next start` loads next.config, and a config that imports a dev dependency (a webpack plugin,
// @next/bundle-analyzer) crashes the server at start once dev dependencies are gone. So the
// config is loaded the way next start loads it, with the app's own Next.js, before and after the
// prune: when it loaded before and no longer does, the full install is run again and the dev
// dependencies stay in the image. A config that does not load even before (it needs a variable
// only the running service has, say) says nothing about the prune, which then stands.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { spawnSync } = require("node:child_process");

const PREFIX = "platform: next start:";
const CHECK_MS = 60000;

// The config loaded in a child process (a fresh module cache), as next start does: undefined
// when it loads, else the error's first line.
function checkConfig(cwd) {
  const script = [
    "const { createRequire } = require('node:module');",
    `const req = createRequire(${JSON.stringify(path.join(cwd, "package.json"))});`,
    "const load = req('next/dist/server/config').default;",
    "const { PHASE_PRODUCTION_SERVER } = req('next/constants');",
    `load(PHASE_PRODUCTION_SERVER, ${JSON.stringify(cwd)}).then(() => process.exit(0), (e) => {`,
    "  process.stderr.write(String((e && e.message) || e).split('\\n')[0]);",
    "  process.exit(1);",
    "});",
  ].join("\n");
  const r = spawnSync(process.execPath, ["-e", script], {
    cwd,
    encoding: "utf8",
    timeout: CHECK_MS,
    env: { ...process.env, NODE_ENV: "production" },
  });
  if (r.status === 0) return undefined;
  return (r.stderr || "").trim().split("\n").pop() || (r.error ? r.error.message : `exit ${r.status}`);
}

function sh(command) {
  const r = spawnSync("sh", ["-c", command], { stdio: "inherit" });
  return r.status ?? 1;
}

// The config file next start would load, for the message.
function configName(cwd) {
  const names = ["next.config.js", "next.config.mjs", "next.config.cjs", "next.config.ts", "next.config.mts"];
  return names.find((n) => fs.existsSync(path.join(cwd, n))) || "next.config";
}

function main([prune, install]) {
  if (!prune || !install) {
    process.stderr.write("usage: node next-prune.cjs '<prune command>' '<install command>'\n");
    return 2;
  }
  const cwd = process.cwd();
  const before = checkConfig(cwd);
  const pruned = sh(prune);
  if (pruned !== 0) return pruned;
  if (before !== undefined) return 0;
  const after = checkConfig(cwd);
  if (after === undefined) return 0;
  process.stdout.write(
    `${PREFIX} ${configName(cwd)} does not load without dev dependencies (${after}): they stay in the image (move what it imports to dependencies for a smaller image)\n`,
  );
  return sh(install);
}

module.exports = { checkConfig, main };

if (require.main === module) process.exit(main(process.argv.slice(2)));
