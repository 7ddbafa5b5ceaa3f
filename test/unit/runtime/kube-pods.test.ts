import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../fixtures/temp-home.js";
import { parseBytes, parseCpu, toKubePod, toPodUsage } from "../../../src/runtime/kube-pods.js";
import { saveSnapshot } from "../../../src/runtime/telemetry-snapshot.js";
import { podDetails } from "../../../src/runtime/kubernetes-target.js";
import { STORE_FILE } from "../../../src/telemetry/index.js";

const pod = (over: { labels?: Record<string, string>; owner?: string; waiting?: string; deleting?: boolean } = {}) => ({
  metadata: {
    name: "api-5d8f-abcde",
    namespace: "shop-preview",
    labels: over.labels ?? { "platform.service": "api", "platform.project": "shop", "platform.env": "preview" },
    ...(over.owner ? { ownerReferences: [{ kind: over.owner }] } : {}),
    ...(over.deleting ? { deletionTimestamp: "2026-11-27T00:00:00Z" } : {}),
  },
  spec: { nodeName: "node-a", containers: [{ image: "reg/api@sha256:1", resources: { limits: { cpu: "500m", memory: "536870912" } } }] },
  status: {
    phase: "Running",
    startTime: "2026-11-27T00:00:00Z",
    conditions: [{ type: "Ready", status: over.waiting ? "False" : "True" }],
    containerStatuses: [{ ready: !over.waiting, restartCount: 2, state: over.waiting ? { waiting: { reason: over.waiting } } : {} }],
  },
});

describe("Kubernetes quantities", () => {
  it("reads CPU in cores from every suffix metrics-server and specs use", () => {
    expect(parseCpu("500m")).toBe(0.5);
    expect(parseCpu("2")).toBe(2);
    expect(parseCpu("123456789n")).toBeCloseTo(0.123456789);
    expect(parseCpu("250u")).toBeCloseTo(0.00025);
    expect(parseCpu("lots")).toBeNaN();
  });

  it("reads memory in bytes, binary and decimal suffixes alike", () => {
    expect(parseBytes("64974Ki")).toBe(64974 * 1024);
    expect(parseBytes("512Mi")).toBe(512 * 1024 ** 2);
    expect(parseBytes("1Gi")).toBe(1024 ** 3);
    expect(parseBytes("1G")).toBe(1e9);
    expect(parseBytes("536870912")).toBe(536870912);
    expect(parseBytes("12 apples")).toBeNaN();
  });
});

describe("pods of a stack's services", () => {
  it("a serving pod: its service, state, readiness, node, restarts and limits", () => {
    expect(toKubePod(pod())).toEqual({
      namespace: "shop-preview",
      name: "api-5d8f-abcde",
      service: "api",
      state: "running",
      status: "Running, ready 1/1",
      ready: true,
      image: "reg/api@sha256:1",
      node: "node-a",
      startedAt: "2026-11-27T00:00:00Z",
      restartCount: 2,
      limits: { cpus: 0.5, memoryBytes: 536870912 },
    });
  });

  it("a waiting container says why; a terminating pod says so", () => {
    expect(toKubePod(pod({ waiting: "CrashLoopBackOff" }))).toMatchObject({ status: "CrashLoopBackOff", ready: false });
    expect(toKubePod(pod({ deleting: true }))?.state).toBe("terminating");
  });

  it("leaves out Job pods (migrations, cron), the telemetry receiver, and pods of no service", () => {
    expect(toKubePod(pod({ owner: "Job" }))).toBeUndefined();
    expect(toKubePod(pod({ labels: { "platform.service": "x", "platform.role": "telemetry" } }))).toBeUndefined();
    expect(toKubePod(pod({ labels: { "platform.run": "api" } }))).toBeUndefined();
  });

  it("as Studio's details: start, restarts, limits", () => {
    expect(podDetails(toKubePod(pod())!)).toEqual({
      startedAt: "2026-11-27T00:00:00Z",
      restartCount: 2,
      exitCode: 0,
      oomKilled: false,
      limits: { cpus: 0.5, memoryBytes: 536870912, pids: null },
    });
  });
});

describe("metrics-server readings", () => {
  it("sums a pod's containers: percent of one CPU and bytes, keyed by namespace/name", () => {
    const usage = toPodUsage([
      {
        metadata: { name: "api-1", namespace: "ns" },
        containers: [{ usage: { cpu: "12345678n", memory: "40Mi" } }, { usage: { cpu: "1m", memory: "1024Ki" } }],
      },
    ]);
    expect(usage.get("ns/api-1")).toEqual({ cpuPercent: 1.33, memoryBytes: 41 * 1024 ** 2 });
  });
});

describe("telemetry store snapshots", () => {
  it("writes the store found between the markers, whatever else the exec printed", () => {
    const dir = tempDir("snap-");
    const data = Buffer.from("SQLite format 3\0 and more");
    expect(saveSnapshot(dir, `warning: something\n<<${data.toString("base64")}>>`)).toBe(true);
    expect(readFileSync(join(dir, STORE_FILE))).toEqual(data);
  });

  it("writes nothing when there is no snapshot (no receiver, no store yet)", () => {
    const dir = tempDir("snap-");
    expect(saveSnapshot(dir, undefined)).toBe(false);
    expect(saveSnapshot(dir, "Error: ENOENT")).toBe(false);
  });
});
