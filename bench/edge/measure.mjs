// The client side of bench/edge: c keep-alive HTTPS/1.1 connections, one request at a time
// each, and the CPU every process on the path spent meanwhile.
import { readFileSync } from "node:fs";
import { Agent, request } from "node:https";

export function get(agent, target, path = target.path ?? "/") {
  return new Promise((ok, fail) => {
    const req = request(
      {
        host: target.address ?? "127.0.0.1",
        port: target.port,
        path,
        servername: target.host,
        ca: target.ca,
        agent,
        headers: { host: `${target.host}:${target.port}` },
      },
      (res) => {
        const tls = res.socket.getProtocol();
        let body = "";
        res.on("data", (d) => {
          body += d;
        });
        res.on("end", () =>
          res.statusCode === 200
            ? ok({ body, tls, reused: req.reusedSocket })
            : fail(new Error(`HTTP ${res.statusCode} from ${target.host}:${target.port}: ${body}`)),
        );
      },
    );
    req.on("error", fail);
    req.end();
  });
}

/**
 * CPU seconds so far of a process (all its threads: /proc/PID/stat) or of a whole container
 * (every process in it, as nginx's workers: its cgroup's cpu.stat).
 */
export function cpuSeconds(src) {
  if (src.cgroup?.v1) return Number(readFileSync(`${cgroupDir(src)}/cpuacct.usage`, "utf8")) / 1e9;
  if (src.cgroup) return Number(readFileSync(`${cgroupDir(src)}/cpu.stat`, "utf8").match(/usage_usec (\d+)/)[1]) / 1e6;
  const f = readFileSync(`/proc/${src.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/** The peak RSS of a container's processes (each one's VmHWM, summed: nginx's workers too), MiB. */
export function peakRssMiB(src) {
  const pids = readFileSync(`${cgroupDir(src)}/cgroup.procs`, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean);
  const kib = pids.map((pid) => Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmHWM:\s+(\d+)/)?.[1] ?? 0));
  return kib.reduce((a, b) => a + b, 0) / 1024;
}

/** A container's cgroup directory (cgroupOf): v1's cpuacct hierarchy, else v2's unified one. */
const cgroupDir = (src) => (src.cgroup.v1 ? `/sys/fs/cgroup/cpuacct${src.cgroup.v1}` : `/sys/fs/cgroup${src.cgroup}`);

/** The cgroup of a process (a container's, for its main process): v1's cpuacct hierarchy where there is one, else v2's. */
export function cgroupOf(pid) {
  const lines = readFileSync(`/proc/${pid}/cgroup`, "utf8").trim().split("\n");
  const v1 = lines.find((l) => /^\d+:[^:]*\bcpuacct\b/.test(l));
  return v1 ? { v1: v1.split(":")[2] } : lines.find((l) => l.startsWith("0::")).slice(3);
}

/**
 * c keep-alive connections, each sending one request at a time, for `seconds` after a 1 s
 * warm-up; `cpu` names the CPU sources to read (cpuSeconds), `dials()` the upstream's dial count.
 */
export async function measure(target, c, seconds, cpu, dials) {
  const agent = new Agent({ keepAlive: true, maxSockets: c });
  const lat = [];
  const errors = [];
  let connects = 0;
  let measuring = false;
  let stop = false;
  const loop = async () => {
    while (!stop) {
      const t0 = performance.now();
      try {
        const { reused } = await get(agent, target);
        if (measuring) {
          lat.push(performance.now() - t0);
          if (!reused) connects++;
        }
      } catch (err) {
        errors.push(err.message);
      }
    }
  };
  const loops = Array.from({ length: c }, loop);
  await new Promise((r) => setTimeout(r, 1000));
  const cpu0 = Object.fromEntries(Object.entries(cpu).map(([k, src]) => [k, cpuSeconds(src)]));
  const client0 = process.cpuUsage();
  const dials0 = await dials();
  measuring = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  measuring = false;
  const elapsed = (performance.now() - t0) / 1000;
  const client = process.cpuUsage(client0);
  // CPU microseconds per request, per process on the path
  const perRequest = Object.fromEntries(Object.entries(cpu).map(([k, src]) => [k, ((cpuSeconds(src) - cpu0[k]) * 1e6) / lat.length]));
  perRequest.client = (client.user + client.system) / lat.length;
  perRequest.dials = ((await dials()) - dials0) / lat.length;
  perRequest.connects = connects / lat.length;
  stop = true;
  await Promise.all(loops);
  agent.destroy();
  lat.sort((a, b) => a - b);
  return { errors, rps: lat.length / elapsed, p50: lat[Math.floor(lat.length * 0.5)], p99: lat[Math.floor(lat.length * 0.99)], perRequest };
}
