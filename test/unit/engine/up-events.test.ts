import type { EngineEvent, Stack, UpOptions } from "@pulumi/pulumi/automation/index.js";
import { describe, expect, it } from "vitest";
import { upWithoutFollowUps } from "../../../src/engine/up.js";

/** A stand-in for Stack: its up() plays engine events, then asks outputs() and info() as the Automation API does. */
class FakeStack {
  calls: string[] = [];
  constructor(private readonly events: EngineEvent[]) {}
  async outputs() {
    this.calls.push("outputs");
    return { from: { value: "cli", secret: false } };
  }
  async info() {
    this.calls.push("info");
    return { resourceChanges: { from: 1 } };
  }
  async up(opts: UpOptions) {
    for (const e of this.events) opts.onEvent?.(e);
    return { stdout: "", stderr: "", outputs: await this.outputs(), summary: await this.info() };
  }
}

const stackOutputs: EngineEvent = {
  sequence: 1,
  timestamp: 0,
  resOutputsEvent: {
    metadata: {
      op: "same",
      urn: "urn:pulumi:preview::app::pulumi:pulumi:Stack::app-preview",
      type: "pulumi:pulumi:Stack",
      new: {
        type: "pulumi:pulumi:Stack",
        urn: "",
        provider: "",
        inputs: {},
        outputs: { web_external_url: "https://web.localhost", database_url: "[secret]" },
      },
      provider: "",
    },
  },
} as unknown as EngineEvent;
const summary = {
  sequence: 2,
  timestamp: 0,
  summaryEvent: { maybeCorrupt: false, durationSeconds: 1, resourceChanges: { same: 12 }, policyPacks: {} },
} as unknown as EngineEvent;

describe("pulumi up without the Automation API's follow-up CLI calls", () => {
  it("answers outputs and the change summary from the engine's events, and still passes every event on", async () => {
    const fake = new FakeStack([stackOutputs, summary]);
    const seen: EngineEvent[] = [];
    const res = await upWithoutFollowUps(fake as unknown as Stack, { onEvent: (e) => seen.push(e) });
    expect(res.outputs).toEqual({
      web_external_url: { value: "https://web.localhost", secret: false },
      database_url: { value: "[secret]", secret: true },
    });
    expect(res.summary.resourceChanges).toEqual({ same: 12 });
    expect(fake.calls).toEqual([]);
    expect(seen).toHaveLength(2);
  });

  it("falls back to the CLI when the events lack them, and leaves the stack as it was", async () => {
    const fake = new FakeStack([]);
    const res = await upWithoutFollowUps(fake as unknown as Stack, {});
    expect(res.outputs).toEqual({ from: { value: "cli", secret: false } });
    expect(res.summary.resourceChanges).toEqual({ from: 1 });
    expect(Object.keys(fake)).not.toContain("outputs");
    expect(fake.calls).toEqual(["outputs", "info"]);
  });
});
