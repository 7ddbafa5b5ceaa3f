// Runs one command and measures it: wall time, and memory sampled from /proc every 50 ms:
// the peak RSS of the command's own process (VmHWM, exact), the peak of the sum over its
// whole process tree (the engine, language host and provider plugin for the platform), and
// the peak RSS of extra processes watched during the run (the edge container's processes).
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

function statusKb(pid, field) {
  try {
    const m = readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

function childrenOf(pid) {
  const out = [];
  let tasks = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tasks) {
    try {
      out.push(...readFileSync(`/proc/${pid}/task/${t}/children`, "utf8").split(" ").filter(Boolean).map(Number));
    } catch {
      /* the task ended */
    }
  }
  return out;
}

/** The process and all its descendants. */
export function processTree(root) {
  const seen = [];
  for (const queue = [root]; queue.length; ) {
    const pid = queue.pop();
    seen.push(pid);
    queue.push(...childrenOf(pid));
  }
  return seen;
}

/** Commands still running: stopped (SIGTERM, which compose and the platform handle) when the bench is. */
const running = new Set();
export function stopRunning() {
  const closed = [...running].map((child) => new Promise((r) => child.once("close", r)));
  for (const child of running) child.kill("SIGTERM");
  return Promise.all(closed);
}

const sumRssKb = (pids) => pids.reduce((n, p) => n + statusKb(p, "VmRSS"), 0);

/**
 * run(cmd, args, { cwd, env, watch }) -> { ms, code, out, mem: { selfMb, treeMb, watchedMb } }.
 * watch: a function returning pids to sample as well (called each tick; may change).
 */
export function run(cmd, args, { cwd, env, watch } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    running.add(child);
    const chunks = [];
    child.stdout.on("data", (b) => chunks.push(b));
    child.stderr.on("data", (b) => chunks.push(b));
    let self = 0,
      tree = 0,
      watched = 0;
    const sample = () => {
      self = Math.max(self, statusKb(child.pid, "VmHWM"));
      tree = Math.max(tree, sumRssKb(processTree(child.pid)));
      if (watch) watched = Math.max(watched, sumRssKb(watch()));
    };
    const timer = setInterval(sample, 50);
    sample();
    child.on("error", (e) => {
      clearInterval(timer);
      reject(e);
    });
    child.on("close", (code) => {
      running.delete(child);
      clearInterval(timer);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const mb = (kb) => Math.round(kb / 1024);
      resolve({
        ms,
        code,
        out: Buffer.concat(chunks).toString("utf8"),
        mem: { selfMb: mb(self), treeMb: mb(tree), watchedMb: mb(watched) },
      });
    });
  });
}

/** Like run, but a non-zero exit is an error that carries the command's output. */
export async function runOk(cmd, args, opts) {
  const r = await run(cmd, args, opts);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.code}:\n${r.out.slice(-4000)}`);
  return r;
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** "median (min–max)" of the runs, each formatted by `fmt`; the median alone for one run. */
export const medianSpread = (xs, fmt) =>
  xs.length > 1 ? `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})` : fmt(median(xs));

/**
 * How `platform` runs in a checkout: `node FLAGS ROOT/dist/bin.js`, with the Node flags of its
 * shebang (`#!/usr/bin/env -S node FLAGS`, the set-up's launcher passes the same).
 */
export function platformArgs(root) {
  const bin = join(root, "dist", "bin.js");
  const first = readFileSync(bin, "utf8").split("\n", 1)[0];
  return [...(first.match(/^#!\/usr\/bin\/env -S node (.*)$/)?.[1].split(/\s+/) ?? []), bin];
}
