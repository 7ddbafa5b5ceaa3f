// The platform's cron scheduler for one stack on Docker (platform.yml `cron:`). Croner decides
// when; each run is a fresh container of the service's image, made through the Engine API on
// the mounted socket. Runs never overlap (croner's protect: a run due while the last one still
// runs is skipped, and recorded as such). Every run is appended to /data/runs.jsonl.
// Jobs come from /etc/platform-scheduler/jobs.json (0600: it holds the services' variables).
import { appendFileSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { Cron } from "./croner.mjs";

const SOCKET = process.env.DOCKER_SOCKET || "/var/run/docker.sock";
const RUNS = process.env.RUNS_FILE || "/data/runs.jsonl";
const OUTPUT_BYTES = 4096;
const config = JSON.parse(readFileSync("/etc/platform-scheduler/jobs.json", "utf8"));

function api(method, path, body) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(
      { socketPath: SOCKET, method, path, headers: data ? { "Content-Type": "application/json", "Content-Length": data.length } : {} },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const buf = Buffer.concat(chunks);
          if (res.statusCode >= 400) reject(new Error(`${method} ${path}: ${res.statusCode} ${buf.toString()}`));
          else resolve(buf);
        });
      },
    );
    req.on("error", reject);
    if (data) req.write(data);
    req.end();
  });
}

/** The Engine's multiplexed log stream (8-byte frame headers) as text. */
function demux(buf) {
  const out = [];
  for (let i = 0; i + 8 <= buf.length; ) {
    const size = buf.readUInt32BE(i + 4);
    out.push(buf.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return Buffer.concat(out).toString("utf8");
}

function record(entry) {
  appendFileSync(RUNS, `${JSON.stringify(entry)}\n`);
  console.log(JSON.stringify(entry));
}

const running = new Set();

/** A run of this job still running in the engine: one a previous scheduler started (a deploy replaced it). */
async function runningElsewhere(job) {
  const filters = JSON.stringify({ label: [`platform.cron=${job.service}/${job.name}`, `platform.cron.stack=${config.prefix}`], status: ["running"] });
  const list = JSON.parse((await api("GET", `/containers/json?filters=${encodeURIComponent(filters)}`)).toString());
  return list.find((c) => !running.has(c.Id));
}

async function run(job, scheduled) {
  const other = await runningElsewhere(job).catch(() => undefined);
  if (other) {
    record({
      job: `${job.service}/${job.name}`,
      scheduled: scheduled?.toISOString(),
      outcome: "skipped",
      reason: `a run started by the previous scheduler still runs (${(other.Names?.[0] ?? other.Id).replace(/^\//, "")})`,
    });
    return;
  }
  const started = new Date();
  const name = `${config.prefix}_${job.service}-${job.name}-${started.getTime().toString(36)}`;
  let id;
  let exitCode = -1;
  let output = "";
  let error;
  let timedOut = false;
  try {
    const created = JSON.parse(
      (
        await api("POST", `/containers/create?name=${encodeURIComponent(name)}`, {
          Image: job.image,
          Cmd: job.command,
          Env: Object.entries(job.env).map(([k, v]) => `${k}=${v}`),
          Labels: { "platform.cron": `${job.service}/${job.name}`, "platform.cron.stack": config.prefix },
          HostConfig: {
            NetworkMode: config.network,
            Init: true,
            SecurityOpt: ["no-new-privileges:true"],
            ...(job.cpus ? { NanoCpus: Math.round(job.cpus * 1e9) } : {}),
            ...(job.memoryBytes ? { Memory: job.memoryBytes } : {}),
            ...(job.pidsLimit ? { PidsLimit: job.pidsLimit } : {}),
            LogConfig: { Type: "json-file", Config: { "max-size": "1m" } },
          },
        })
      ).toString(),
    );
    id = created.Id;
    running.add(id);
    await api("POST", `/containers/${id}/start`);
    // timeout: SIGTERM, 5 s, SIGKILL; the wait below then returns its exit code (143 or 137).
    const timer = setTimeout(() => {
      timedOut = true;
      api("POST", `/containers/${id}/stop?t=5`).catch(() => undefined);
    }, job.timeoutSeconds * 1000);
    try {
      exitCode = JSON.parse((await api("POST", `/containers/${id}/wait`)).toString()).StatusCode;
    } finally {
      clearTimeout(timer);
    }
    const text = demux(await api("GET", `/containers/${id}/logs?stdout=1&stderr=1&tail=100`));
    output = text.length > OUTPUT_BYTES ? text.slice(-OUTPUT_BYTES) : text;
  } catch (e) {
    error = e.message;
  } finally {
    if (id) {
      running.delete(id);
      await api("DELETE", `/containers/${id}?force=1`).catch(() => undefined);
    }
  }
  const finished = new Date();
  record({
    job: `${job.service}/${job.name}`,
    scheduled: scheduled?.toISOString(),
    started: started.toISOString(),
    finished: finished.toISOString(),
    seconds: (finished - started) / 1000,
    exitCode,
    outcome: error ? "error" : timedOut ? "timed out" : exitCode === 0 ? "succeeded" : "failed",
    ...(error ? { error } : {}),
    output,
  });
}

/**
 * The scheduler a deploy is replacing (the new one starts first, so both run for a moment):
 * this one arms its jobs only once that one has exited (bounded), so the two never start runs
 * side by side; a run the old one left still running is skipped by runningElsewhere.
 */
async function waitForPrevious() {
  const me = process.env.HOSTNAME ?? "";
  const filters = JSON.stringify({ label: ["platform.scheduler=true"], network: [config.network], status: ["running"] });
  for (const until = Date.now() + 90_000; Date.now() < until; await new Promise((r) => setTimeout(r, 500))) {
    const list = JSON.parse((await api("GET", `/containers/json?filters=${encodeURIComponent(filters)}`)).toString());
    if (!list.some((c) => !c.Id.startsWith(me))) return;
  }
  console.error("the previous scheduler still runs after 90 s: arming the jobs anyway");
}

// A SIGTERM while waiting ends this process at once (no handler yet): it has started no run.
await waitForPrevious().catch((e) => console.error(`looking for a previous scheduler: ${e?.message ?? e}`));
const crons = config.jobs.map(
  (job) =>
    new Cron(
      job.schedule,
      {
        timezone: "UTC",
        name: `${job.service}/${job.name}`,
        // Forbid: a run due while the previous one still runs is skipped, never started beside it.
        protect: (self) =>
          record({ job: `${job.service}/${job.name}`, scheduled: new Date().toISOString(), outcome: "skipped", reason: "the previous run still runs", runningSince: self.currentRun()?.toISOString?.() }),
        catch: (e) => console.error(`${job.service}/${job.name}: ${e?.message ?? e}`),
      },
      (self) => run(job, self.currentRun()),
    ),
);
for (const c of crons) console.log(`scheduled ${c.name}: "${c.getPattern()}" (UTC), next ${c.nextRun()?.toISOString()}`);

// A stop (redeploy, destroy) lets no new run start; runs in progress get the grace period.
let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  for (const c of crons) c.stop();
  const until = Date.now() + 20_000;
  while (running.size && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
  // Still running: stopped (SIGTERM, 5 s, SIGKILL), so no run outlives its scheduler; each is
  // then recorded by its own run() as it ends (exit code 143 or 137).
  await Promise.all([...running].map((id) => api("POST", `/containers/${id}/stop?t=5`).catch(() => undefined)));
  const recorded = Date.now() + 3_000;
  while (running.size && Date.now() < recorded) await new Promise((r) => setTimeout(r, 100));
  process.exit(0);
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
