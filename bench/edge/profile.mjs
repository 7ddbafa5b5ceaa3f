// A CPU profile of our edge under load: Caddy's admin endpoint (a unix socket inside its
// container, reached through /proc/PID/root) serves Go's pprof; `go tool pprof -top` reads it.
import { createWriteStream } from "node:fs";
import { request } from "node:http";
import { sh } from "./upstream.mjs";

/** Writes a `seconds` CPU profile of the Caddy whose main process is `pid` to `out`. */
export function caddyProfile(pid, seconds, out) {
  return new Promise((ok, fail) => {
    const req = request(
      {
        socketPath: `/proc/${pid}/root/run/caddy-admin.sock`,
        path: `/debug/pprof/profile?seconds=${seconds}`,
        headers: { host: "" },
      },
      (res) => {
        if (res.statusCode !== 200) return fail(new Error(`pprof: HTTP ${res.statusCode}`));
        res.pipe(createWriteStream(out)).on("finish", ok).on("error", fail);
      },
    );
    req.on("error", fail);
    req.end();
  });
}

/** The profile's top functions, cumulative (what each call tree costs) and flat. */
export function pprofTop(file, n = 30) {
  const top = (flag) => sh("go", ["tool", "pprof", "-top", flag, `-nodecount=${n}`, file]);
  return `${top("-cum")}\n${top("-flat")}`;
}
