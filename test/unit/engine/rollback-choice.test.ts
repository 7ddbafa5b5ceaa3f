import { describe, expect, it } from "vitest";
import { chooseRollback, type DeploymentRecord } from "../../../src/engine/history.js";

const rec = (id: string, outcome: DeploymentRecord["outcome"], tag: string, configHash = "c1"): DeploymentRecord => ({
  id,
  project: "p",
  env: "preview",
  startedAt: id,
  outcome,
  configHash,
  cliVersion: "0",
  services: {},
  migrations: {},
  urls: {},
  images: { api: { tag: `platform/p_api:${tag}`, hash: tag } },
  configCopy: `/h/${id}.platform.yml`,
});

describe("which deployment a rollback goes back to", () => {
  const history = [
    rec("d5", "failed", "e"),
    rec("d4", "succeeded", "d"),
    rec("d3", "succeeded", "d"),
    rec("d2", "succeeded", "c"),
    rec("d1", "succeeded", "b"),
  ];

  it("defaults to the newest successful deployment that ran something else than the current one", () => {
    expect(chooseRollback(history)).toMatchObject({ target: { id: "d2" }, current: { id: "d4" } });
  });

  it("takes a named deployment, and refuses failed, current, unknown and pre-rollback records", () => {
    expect(chooseRollback(history, "d1")).toMatchObject({ target: { id: "d1" } });
    expect(chooseRollback(history, "d5")).toMatch(/did not succeed \(failed\)/);
    expect(chooseRollback(history, "d4")).toMatch(/is the current deployment already/);
    expect(chooseRollback(history, "nope")).toMatch(/no deployment nope/);
    const old = { ...rec("d0", "succeeded", "a"), images: undefined };
    expect(chooseRollback([...history, old], "d0")).toMatch(/older platform/);
  });

  it("says so when there is nothing to go back to", () => {
    expect(chooseRollback([rec("d1", "succeeded", "a")])).toMatch(/no earlier successful deployment/);
  });
});
