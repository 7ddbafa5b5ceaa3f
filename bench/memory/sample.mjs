// Per-process memory of one command's whole process tree, sampled from /proc every 50 ms:
// each process's own peak (VmHWM, with RssAnon and RssFile at that moment), named by what it
// is (the platform CLI, the Pulumi engine, the language host, the program, the provider
// plugin...), and the peak of the tree's summed RSS (what bench/compare reports).
import { readFileSync, readlinkSync } from "node:fs";
import { processTree } from "../compare/measure.mjs";

function status(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (f) => Number(text.match(new RegExp(`^${f}:\\s+(\\d+) kB`, "m"))?.[1] ?? 0);
    return { rss: kb("VmRSS"), hwm: kb("VmHWM"), anon: kb("RssAnon"), file: kb("RssFile") };
  } catch {
    return undefined;
  }
}

/** What a process is, from its executable and arguments. */
export function kindOf(pid) {
  let exe = "";
  let argv = [];
  try {
    exe = readlinkSync(`/proc/${pid}/exe`);
    argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return undefined;
  }
  const base = exe.split("/").pop();
  const args = argv.join(" ");
  if (/node$/.test(base)) {
    if (/dist\/bin\.js/.test(args)) return "cli (node)";
    if (/dist\/provider\/main\.js/.test(args)) return "provider (node)";
    if (/@pulumi\/pulumi\/cmd\/run/.test(args)) return "program (node)";
    if (/dynamic-provider/.test(args)) return "dynamic provider (node)";
    return `node ${args.slice(0, 60)}`;
  }
  if (base === "pulumi") return "engine (pulumi, Go)";
  if (base.startsWith("pulumi-language-")) return `language host (${base}, Go)`;
  if (base.startsWith("pulumi-resource-")) return `${base} (Go)`;
  if (/^(sh|dash|bash|setpriv|setsid)$/.test(base)) return `${base} (exec shim)`;
  return base;
}

/** Starts sampling the tree under root; stop() returns { tree, perKind } in KiB. */
export function sampleTree(root) {
  const procs = new Map(); // pid+kind -> { kind, hwm, anon, file }
  let tree = 0;
  const tick = () => {
    let sum = 0;
    for (const pid of processTree(root)) {
      const s = status(pid);
      if (!s) continue;
      sum += s.rss;
      const kind = kindOf(pid);
      if (!kind) continue;
      const key = `${pid}:${kind}`;
      const p = procs.get(key) ?? { kind, hwm: 0, rssAtMax: -1, anon: 0, file: 0 };
      if (s.rss >= p.rssAtMax) Object.assign(p, { rssAtMax: s.rss, anon: s.anon, file: s.file });
      p.hwm = Math.max(p.hwm, s.hwm);
      procs.set(key, p);
    }
    tree = Math.max(tree, sum);
  };
  const timer = setInterval(tick, 50);
  tick();
  return {
    stop() {
      clearInterval(timer);
      const perKind = {};
      for (const p of procs.values()) {
        perKind[p.kind] ??= { count: 0, hwm: 0, anon: 0, file: 0 };
        const k = perKind[p.kind];
        k.count++;
        if (p.hwm > k.hwm) Object.assign(k, { hwm: p.hwm, anon: p.anon, file: p.file });
      }
      return { tree, perKind };
    },
  };
}
