import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeServicePreview, renderPlanJson, renderPlanText, type PreviewState } from "../../../src/cli/plan-render.js";
import { validateConfig } from "../../../src/config/index.js";
import { summarizePreview } from "../../../src/engine/preview.js";
import { buildPlan } from "../../../src/plan/build-plan.js";
import { buildPlanReport, type PlanReport } from "../../../src/plan/plan-report.js";
import { scanSources } from "../../../src/plan/scan-source.js";
import { CTX, FULLSTACK } from "../../fixtures/plans.js";
import { buildDist, expectGolden, ROOT } from "./golden.js";

/**
 * `platform plan`: golden text and JSON for the part that needs no engine (the report, on the
 * fixtures), the preview's summary from engine events, and the real CLI with --no-preview.
 * After an intended change of output: UPDATE_GOLDEN=1 npx vitest run test/unit/cli/plan-golden.test.ts
 * A missing golden file fails under CI (elsewhere it is written); a failed build of dist/ fails
 * the CLI's test.
 */
const REALREPOS = join(ROOT, "test", "fixtures", "apps", "realrepos");

async function reportOf(dir: string, project: string, secrets: string[]): Promise<PlanReport> {
  const r = validateConfig(readFileSync(join(dir, "platform.yml"), "utf8"), { file: "platform.yml", projectDir: dir });
  if (!r.config) throw new Error(`fixture invalid: ${JSON.stringify(r.errors)}`);
  const plan = buildPlan(r.config, { ...CTX, project, projectDir: dir }, await scanSources(r.config, dir));
  return buildPlanReport(plan, dir, (p) => readFileSync(p, "utf8"), new Set(secrets));
}

const event = (op: string, type: string, name: string, diffs: string[] = []): EngineEvent =>
  ({
    sequence: 0,
    timestamp: 0,
    resourcePreEvent: { metadata: { op, urn: `urn:pulumi:preview::realrepos::${type}::${name}`, type, provider: "", diffs } },
  }) as unknown as EngineEvent;

/** What a preview after changing API_TOKEN looks like: only api is rebuilt and replaced. */
const SECRET_CHANGED: EngineEvent[] = [
  event("same", "platform:docker:Container", "database"),
  event("replace", "platform:docker:Image", "api-image", ["hash", "tag"]),
  event("create-replacement", "platform:docker:Container", "api", ["env", "image"]),
  event("replace", "platform:docker:Container", "api", ["env", "image"]),
  event("delete-replaced", "platform:docker:Container", "api"),
  event("same", "platform:docker:Image", "web-image"),
  event("same", "platform:docker:Container", "web"),
  event("same", "platform:docker:Image", "hook-image"),
  event("same", "platform:docker:Container", "hook"),
  event("same", "platform:random:Words", "url-words"),
];

describe("platform plan: the report", () => {
  it("realrepos fixture, text (secret not set)", async () => {
    expectGolden("plan-realrepos.txt", renderPlanText(await reportOf(REALREPOS, "realrepos", []), { kind: "skipped" }));
  });

  it("realrepos fixture, with a preview after a secret changed", async () => {
    const preview: PreviewState = {
      kind: "done",
      summary: { services: summarizePreview(SECRET_CHANGED), counts: { same: 8, replace: 2 } },
    };
    const report = await reportOf(REALREPOS, "realrepos", ["API_TOKEN"]);
    expectGolden("plan-realrepos-preview.txt", renderPlanText(report, preview));
    expectGolden("plan-realrepos-preview.json", renderPlanJson(report, preview));
  });

  it("fullstack example, never deployed", async () => {
    expectGolden(
      "plan-fullstack.txt",
      renderPlanText(await reportOf(FULLSTACK, "fullstack", []), { kind: "not-deployed", reason: "fullstack (preview) has no stack yet" }),
    );
  });

  it("shows names of build-time variables, never values", async () => {
    const text = renderPlanJson(await reportOf(REALREPOS, "realrepos", ["API_TOKEN"]), { kind: "skipped" });
    expect(text).toContain("NEXT_PUBLIC_API_URL");
    expect(text).not.toContain("hello-from-the-build");
    expect(text).not.toMatch(/postgresql:\/\//);
  });
});

describe("platform plan: the preview", () => {
  it("keeps a replacement as one replace per resource, with the inputs that changed", () => {
    expect(summarizePreview(SECRET_CHANGED).api).toEqual({
      image: { op: "replace", diffs: ["hash", "tag"] },
      container: { op: "replace", diffs: ["env", "image"] },
    });
  });

  it("takes the keys that force a replacement when the engine gives no detailed diff", () => {
    const e = event("replace", "platform:docker:Container", "web");
    (e.resourcePreEvent!.metadata as { keys?: string[]; diffs?: string[] }).keys = ["image"];
    (e.resourcePreEvent!.metadata as { diffs?: string[] }).diffs = [];
    expect(summarizePreview([e]).web).toEqual({ container: { op: "replace", diffs: ["image"] } });
  });

  it.each([
    [{ image: { op: "same", diffs: [] }, container: { op: "same", diffs: [] } }, "unchanged"],
    [
      { image: { op: "create", diffs: [] }, migrate: { op: "create", diffs: [] }, container: { op: "create", diffs: [] } },
      "build the image (or reuse one built from the same inputs), run the migration, start the container",
    ],
    [{ container: { op: "replace", diffs: ["image", "env"] } }, "replace the container (changed: env, image)"],
    [undefined, "nothing (not in the stack's program)"],
  ])("describes %j", (p, text) => {
    expect(describeServicePreview(p)).toBe(text);
  });
});

describe("platform plan --no-preview (the real CLI)", () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), "platform-plan-home-"));
    // A failed build fails the test rather than run a stale dist/.
    buildDist();
  }, 180_000);
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it("needs no engine and no login, and exits 0", () => {
    // A platform home of its own: public base images, no links, no credentials.
    const r = spawnSync(process.execPath, [join(ROOT, "dist", "bin.js"), "plan", "--no-preview"], {
      cwd: REALREPOS,
      encoding: "utf8",
      env: { ...process.env, PLATFORM_HOME: home, NO_COLOR: "1" },
      timeout: 30_000,
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expectGolden("plan-cli-no-preview.txt", r.stdout);
  });
});
