import { describe, expect, it } from "vitest";
import { decideNetwork, decideVolume, ownerFilters, SERVICE_KEYS } from "../../../../src/provider/docker/ownership.js";
import { foreignHolderMessage, sortHolders, type VolumeHolder } from "../../../../src/provider/docker/stop-first.js";

/** Never adopt what another stack owns: the pure decisions behind Network, Volume and a database's create. */
const mine = { "platform.project": "shop", "platform.env": "preview", "platform.service": "db" };
const otherEnv = { ...mine, "platform.env": "prod" };
const otherService = { ...mine, "platform.service": "cache" };

describe("network adoption", () => {
  it("creates when absent, adopts this stack's, refuses another stack's or a hand-made one", () => {
    expect(decideNetwork("shop-preview", undefined, mine)).toEqual({ kind: "create" });
    expect(decideNetwork("shop-preview", { Name: "shop-preview", Labels: { ...mine, "platform.managed": "true" } }, mine)).toEqual({
      kind: "adopt",
      name: "shop-preview",
    });
    const other = decideNetwork("shop-preview", { Name: "shop-preview", Labels: otherEnv }, mine);
    expect(other.kind).toBe("refuse");
    expect(other.kind === "refuse" && other.message).toContain(
      'network "shop-preview" already exists and is not this stack\'s (it has project shop, env prod; this stack is project shop, env preview)',
    );
    const bare = decideNetwork("shop-preview", { Name: "shop-preview", Labels: {} }, mine);
    expect(bare.kind === "refuse" && bare.message).toMatch(
      /no platform labels \(not made by the platform\).*docker network rm shop-preview/,
    );
  });
  it("adopts nothing when this stack's labels are missing", () => {
    expect(decideNetwork("n", { Name: "n", Labels: {} }, {}).kind).toBe("refuse");
  });
});

describe("volume adoption", () => {
  it("the wanted name: adopts this service's volume only", () => {
    expect(decideVolume("shop-preview-db-data", { Name: "shop-preview-db-data", Labels: mine }, [], mine)).toEqual({
      kind: "adopt",
      name: "shop-preview-db-data",
    });
    for (const labels of [otherEnv, otherService]) {
      const d = decideVolume("shop-preview-db-data", { Name: "shop-preview-db-data", Labels: labels }, [], mine);
      expect(d.kind === "refuse" && d.message).toMatch(
        /is not this database's .*its data is left alone\. Deploy under another project name or environment/,
      );
    }
    const userMade = decideVolume("shop-preview-db-data", { Name: "shop-preview-db-data", Labels: null }, [], mine);
    expect(userMade.kind === "refuse" && userMade.message).toMatch(
      /no platform labels.*If its data is not needed, remove it \(docker volume rm shop-preview-db-data\)/,
    );
  });
  it("no volume of that name: adopts this service's volume under its older name, so the data survives a naming change", () => {
    expect(decideVolume("shop_preview_db", undefined, [], mine)).toEqual({ kind: "create" });
    expect(
      decideVolume(
        "shop_preview_db",
        undefined,
        [
          { Name: "shop-preview-db-data", Labels: mine },
          { Name: "x", Labels: otherEnv },
        ],
        mine,
      ),
    ).toEqual({ kind: "adopt", name: "shop-preview-db-data" });
    const two = decideVolume(
      "shop_preview_db",
      undefined,
      [
        { Name: "b", Labels: mine },
        { Name: "a", Labels: mine },
      ],
      mine,
    );
    expect(two.kind === "refuse" && two.message).toContain(
      "several volumes hold data of this database (project shop, env preview, service db): a, b",
    );
  });
  it("never takes a database's WAL archive for its data, nor the other way round (the role label)", () => {
    const wal = { ...mine, "platform.volume": "wal-archive" };
    expect(decideVolume("shop_preview_db", undefined, [{ Name: "shop_preview_db_wal", Labels: wal }], mine)).toEqual({ kind: "create" });
    expect(
      decideVolume(
        "w",
        undefined,
        [
          { Name: "shop_preview_db_wal", Labels: wal },
          { Name: "d", Labels: mine },
        ],
        wal,
      ),
    ).toEqual({
      kind: "adopt",
      name: "shop_preview_db_wal",
    });
  });
  it("filters by exactly the owner labels", () => {
    expect(ownerFilters(mine, SERVICE_KEYS)).toEqual(["platform.project=shop", "platform.env=preview", "platform.service=db"]);
  });
});

describe("who holds a database volume", () => {
  const holder = (name: string, labels: Record<string, string> | undefined, running: boolean): VolumeHolder => ({
    id: name,
    name,
    labels,
    running,
    volume: "v",
  });
  it("this service's containers are stopped; another's, running, is refused; a stopped stranger is no danger", () => {
    const old = holder("shop-preview-db-1a2b3c", mine, true);
    const dead = holder("shop-preview-db-000000", mine, false);
    const stranger = holder("my-pg", undefined, true);
    const parked = holder("other-db", otherEnv, false);
    expect(sortHolders([old, dead, stranger, parked], mine)).toEqual({ own: [old, dead], foreign: [stranger] });
    expect(foreignHolderMessage(stranger, mine)).toBe(
      'volume "v" is in use by the running container my-pg (no platform labels (not made by the platform)), not by this database ' +
        "(project shop, env preview, service db): two PostgreSQL servers must never share a data directory. Stop that container (docker stop my-pg) if it should not run, then deploy again.",
    );
  });
});
