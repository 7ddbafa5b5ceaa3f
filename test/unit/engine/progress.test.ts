import type { EngineEvent } from "@pulumi/pulumi/automation/index.js";
import { describe, expect, it } from "vitest";
import { parseUrn, toError, toImage, toLogFile, toProgress } from "../../../src/engine/progress.js";

const urn = (type: string, name: string) => `urn:pulumi:preview::fullstack::${type}::${name}`;
const pre = (type: string, name: string, op: string) =>
  ({
    sequence: 1,
    timestamp: 100,
    resourcePreEvent: { metadata: { op, urn: urn(type, name), type, provider: "" } },
  }) as unknown as EngineEvent;
const outs = (type: string, name: string, op: string, outputs: Record<string, unknown> = {}) =>
  ({
    sequence: 2,
    timestamp: 101,
    resOutputsEvent: { metadata: { op, urn: urn(type, name), type, provider: "", new: { outputs } } },
  }) as unknown as EngineEvent;

describe("engine events to service phases", () => {
  it.each([
    [pre("platform:docker:Image", "api-image", "create"), "api", "Installing"],
    [outs("platform:docker:Image", "api-image", "create"), "api", "built"],
    [pre("platform:docker:Image", "web-image", "create-replacement"), "web", "Installing"],
    [pre("platform:docker:Job", "api-migrate", "create"), "api", "migrating"],
    [outs("platform:docker:Job", "api-migrate", "create"), "api", "migrated"],
    [pre("platform:docker:Container", "database", "create"), "database", "starting"],
    [outs("platform:docker:Container", "database", "create-replacement"), "database", "healthy"],
    [pre("platform:docker:Container", "web", "same"), "web", "unchanged"],
    // The Kubernetes target: the same phases from its Job, Deployment and StatefulSet.
    [pre("kubernetes:batch/v1:Job", "api-migrate", "create-replacement"), "api", "migrating"],
    [outs("kubernetes:batch/v1:Job", "api-migrate", "create-replacement"), "api", "migrated"],
    [pre("kubernetes:apps/v1:StatefulSet", "database", "create"), "database", "starting"],
    [outs("kubernetes:apps/v1:Deployment", "api", "update"), "api", "healthy"],
    [pre("kubernetes:apps/v1:Deployment", "web", "same"), "web", "unchanged"],
  ])("%#: %s -> %s", (event, service, phase) => {
    expect(toProgress(event)).toMatchObject({ service, phase, at: expect.any(Number) });
  });

  it("a worker on Kubernetes: its Deployment (not awaited) starts it, its WorkerRollout says healthy or failed", () => {
    const worker = {
      sequence: 2,
      timestamp: 101,
      resOutputsEvent: {
        metadata: {
          op: "update",
          urn: urn("kubernetes:apps/v1:Deployment", "worker"),
          type: "kubernetes:apps/v1:Deployment",
          provider: "",
          new: { inputs: { metadata: { annotations: { "pulumi.com/skipAwait": "true" } } }, outputs: {} },
        },
      },
    } as unknown as EngineEvent;
    expect(toProgress(pre("kubernetes:apps/v1:Deployment", "worker", "update"))).toMatchObject({ service: "worker", phase: "starting" });
    expect(toProgress(worker)).toBeUndefined();
    expect(toProgress(pre("platform:kubernetes:WorkerRollout", "worker-rollout", "create-replacement"))).toBeUndefined();
    expect(toProgress(outs("platform:kubernetes:WorkerRollout", "worker-rollout", "create-replacement"))).toMatchObject({
      service: "worker",
      phase: "healthy",
    });
    const failed = {
      sequence: 3,
      timestamp: 102,
      resOpFailedEvent: { metadata: { op: "create-replacement", urn: urn("platform:kubernetes:WorkerRollout", "worker-rollout") } },
    } as unknown as EngineEvent;
    expect(toProgress(failed)).toMatchObject({ service: "worker", phase: "failed" });
  });

  it("says nothing for other resources and operations", () => {
    expect(toProgress(pre("platform:docker:Network", "network", "create"))).toBeUndefined();
    expect(toProgress(pre("platform:docker:Image", "api-image", "same"))).toBeUndefined();
    expect(toProgress(pre("platform:docker:Container", "api", "delete-replaced"))).toBeUndefined();
    expect(toProgress(pre("kubernetes:core/v1:Service", "api-service", "create"))).toBeUndefined();
    expect(toProgress(pre("platform:kubernetes:EdgeForwarder", "api-edge", "create"))).toBeUndefined();
  });

  it("counts a replacement once: the engine's `replace` marker step is not a phase", () => {
    expect(toProgress(pre("platform:docker:Container", "api", "replace"))).toBeUndefined();
    expect(toProgress(outs("platform:docker:Container", "api", "replace"))).toBeUndefined();
  });

  it("shows a migration that failed under on_failure: continue as failed, with its exit code", () => {
    const e = outs("platform:docker:Job", "api-migrate", "create", { exitCode: 3, logFile: "/x/api-migrate-1.log" });
    expect(toLogFile(e)).toEqual({ service: "api", logFile: "/x/api-migrate-1.log", exitCode: 3 });
    expect(toProgress(e)).toMatchObject({ service: "api", phase: "migration failed", message: expect.stringContaining("exit 3") });
  });

  it("on Kubernetes, a migration that may fail: the Job (not awaited) says migrating, its outcome says how it went", () => {
    const unawaited = {
      sequence: 2,
      timestamp: 101,
      resOutputsEvent: {
        metadata: {
          op: "create",
          urn: urn("kubernetes:batch/v1:Job", "api-migrate"),
          type: "kubernetes:batch/v1:Job",
          provider: "",
          new: { inputs: { metadata: { annotations: { "pulumi.com/skipAwait": "true" } } }, outputs: {} },
        },
      },
    } as unknown as EngineEvent;
    expect(toProgress(pre("kubernetes:batch/v1:Job", "api-migrate", "create"))).toMatchObject({ service: "api", phase: "migrating" });
    expect(toProgress(unawaited)).toBeUndefined();
    const outcome = "platform:kubernetes:MigrationOutcome";
    expect(toProgress(pre(outcome, "api-migrate-outcome", "create"))).toBeUndefined();
    expect(toProgress(outs(outcome, "api-migrate-outcome", "create", { exitCode: 0, logFile: "/x/a.log" }))).toMatchObject({
      service: "api",
      phase: "migrated",
    });
    const failed = outs(outcome, "api-migrate-outcome", "create", { exitCode: 3, logFile: "/x/b.log" });
    expect(toProgress(failed)).toMatchObject({ service: "api", phase: "migration failed", message: expect.stringContaining("exit 3") });
    expect(toLogFile(failed)).toEqual({ service: "api", logFile: "/x/b.log", exitCode: 3 });
  });

  it("marks failures", () => {
    const e = {
      sequence: 3,
      timestamp: 1,
      resOpFailedEvent: { metadata: { op: "create", urn: urn("platform:docker:Job", "api-migrate"), type: "platform:docker:Job" } },
    } as unknown as EngineEvent;
    expect(toProgress(e)).toMatchObject({ service: "api", phase: "failed" });
  });

  it("attributes error diagnostics and job log files to services", () => {
    const diag = {
      sequence: 4,
      timestamp: 1,
      diagnosticEvent: {
        urn: urn("platform:docker:Job", "api-migrate"),
        message: "error: migration failed\n",
        severity: "error",
        color: "never",
        prefix: "",
      },
    } as unknown as EngineEvent;
    expect(toError(diag)).toEqual({ service: "api", message: "error: migration failed" });
    expect(toLogFile(outs("platform:docker:Job", "api-migrate", "create", { logFile: "/x.log" }))).toEqual({
      service: "api",
      logFile: "/x.log",
    });
  });

  it("a rollback's pinned image shows no build phases", () => {
    const pinned = (e: EngineEvent) => {
      const m = (e.resourcePreEvent ?? e.resOutputsEvent)!.metadata as { new?: Record<string, unknown> };
      m.new = { ...(m.new ?? {}), inputs: { pinned: true } };
      return e;
    };
    expect(toProgress(pinned(pre("platform:docker:Image", "api-image", "create-replacement")))).toBeUndefined();
    expect(toProgress(pinned(outs("platform:docker:Image", "api-image", "create-replacement")))).toBeUndefined();
  });

  it("records the image that runs now, not the one a replacement deletes last", () => {
    const tagged = (op: string, tag: string) => outs("platform:docker:Image", "api-image", op, { tag, hash: `${tag}-hash` });
    expect(toImage(tagged("create-replacement", "new"))).toEqual({ service: "api", tag: "new", hash: "new-hash" });
    expect(toImage(tagged("same", "same"))).toEqual({ service: "api", tag: "same", hash: "same-hash" });
    expect(toImage(tagged("delete-replaced", "old"))).toBeUndefined();
  });

  it("parses parented URNs", () => {
    expect(parseUrn("urn:pulumi:s::p::my:comp$platform:docker:Image::api-image")).toEqual({
      type: "platform:docker:Image",
      name: "api-image",
    });
  });
});

describe("a rollback's images", () => {
  it("are neither Installing nor built: they run as they are", () => {
    const e = pre("platform:docker:Image", "api-image", "create-replacement");
    (e.resourcePreEvent!.metadata as unknown as { new: unknown }).new = { inputs: { pinned: true } };
    expect(toProgress(e)).toBeUndefined();
  });
});

describe("the image a deployment ran", () => {
  it("comes from the step that keeps it, never from refresh or delete-replaced (old outputs)", () => {
    const img = (op: string, tag: string) => outs("platform:docker:Image", "api-image", op, { tag, hash: tag });
    expect(toImage(img("create-replacement", "new"))).toEqual({ service: "api", tag: "new", hash: "new" });
    expect(toImage(img("same", "kept"))).toEqual({ service: "api", tag: "kept", hash: "kept" });
    expect(toImage(img("delete-replaced", "old"))).toBeUndefined();
    expect(toImage(img("refresh", "old"))).toBeUndefined();
  });
});
