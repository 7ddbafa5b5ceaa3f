import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../fixtures/temp-home.js";
import { reveal } from "../../../../src/provider/wire.js";
import { fullstackPlan } from "../../../fixtures/plans.js";

/** The docker target with the telemetry receiver (Pulumi mocks): the attachment, the endpoint, the deployment id. */
interface Recorded {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
  dependencies: string[];
}
const recorded: Recorded[] = [];

pulumi.runtime.setMocks(
  {
    newResource: (args) => {
      recorded.push({ type: args.type, name: args.name, inputs: args.inputs, dependencies: [] });
      return {
        id: `${args.name}-id`,
        state: { ...args.inputs, words: "brave-otter", value: "pw", imageId: "sha256:abc", volumeName: "v" },
      };
    },
    call: () => ({}),
  },
  "fullstack",
  "preview",
  false,
);

const byName = (name: string) => recorded.find((r) => r.name === name) as Recorded;

describe("docker target: telemetry (mocked engine)", () => {
  beforeAll(async () => {
    const { createDockerTarget } = await import("../../../../src/targets/docker/index.js");
    const outputs = createDockerTarget(await fullstackPlan(), {
      buildEnvKey: Buffer.alloc(32, 1),
      logDir: tempDir("logs-"),
      telemetryDir: "/home/me/.platform/telemetry",
      deploymentId: "dep_abc",
    });
    await new Promise<void>((r) => (outputs.web_external_url as pulumi.Output<string>).apply(() => r()));
    await new Promise((r) => setTimeout(r, 50));
  });

  it("joins the shared receiver to the stack's network, built on the Node base image", () => {
    const t = byName("telemetry");
    expect(t.type).toBe("platform:docker:TelemetryAttachment");
    expect(t.inputs).toMatchObject({
      network: "fullstack_preview",
      baseImage: "platform-local/node:22",
      storeDir: "/home/me/.platform/telemetry",
    });
    expect(t.inputs.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("points every HTTP service at it; the database gets no OTEL_* at all", () => {
    for (const s of ["api", "web"]) {
      expect(reveal(byName(s).inputs.env)).toMatchObject({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://platform-telemetry:4318",
        OTEL_SERVICE_NAME: s,
      });
    }
    expect(Object.keys(reveal(byName("database").inputs.env) as object).filter((k) => k.startsWith("OTEL_"))).toEqual([]);
  });

  it("passes the deployment id beside the variables, never in them", () => {
    expect(byName("api").inputs.deploymentId).toBe("dep_abc");
    expect(JSON.stringify(reveal(byName("api").inputs.env))).not.toContain("dep_abc");
  });
});
