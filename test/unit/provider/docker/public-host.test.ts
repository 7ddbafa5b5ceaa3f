import { beforeEach, describe, expect, it, vi } from "vitest";
import { ADJECTIVES, NOUNS } from "../../../../src/provider/random/words.js";

/** Words against a fake engine: the hosts in use come from the label, and from edge aliases of older containers. */
interface Fake {
  Id: string;
  Names: string[];
  Labels: Record<string, string>;
  aliases?: string[];
}
let containers: Fake[] = [];

vi.mock("../../../../src/docker-client.js", () => ({
  docker: () => ({
    listContainers: async (o: { filters: { label: string[] } }) =>
      containers.filter((c) =>
        o.filters.label.every((f) => {
          const [k, v] = f.split("=");
          return v === undefined ? k! in c.Labels : c.Labels[k!] === v;
        }),
      ),
    getContainer: (id: string) => ({
      inspect: async () => ({ NetworkSettings: { Networks: { n: { Aliases: containers.find((c) => c.Id === id)?.aliases ?? null } } } }),
    }),
  }),
  unlessGone: async <T>(read: () => Promise<T>) => read(),
}));

const { wordsHandler } = await import("../../../../src/provider/random/random.js");
const { hostsInUse, refuseTakenHost } = await import("../../../../src/provider/docker/public-host.js");

const stack = (project: string, env = "preview") => ({ "platform.project": project, "platform.env": env, "platform.managed": "true" });
const publicContainer = (id: string, project: string, host: string, env = "preview"): Fake => ({
  Id: id,
  Names: [`/${id}`],
  Labels: { ...stack(project, env), "platform.service": "api", "platform.public-host": host },
});

describe("public hosts in use on the engine", () => {
  beforeEach(() => {
    containers = [];
  });

  it("reads the label, and the edge alias of a container made before the label", async () => {
    containers = [
      publicContainer("c1", "shop", "shop-api-amber-badger"),
      {
        Id: "old",
        Names: ["/old"],
        Labels: { ...stack("blog"), "platform.service": "web" },
        aliases: ["web", "blog-web-bold-beacon.edge"],
      },
      { Id: "job", Names: ["/job"], Labels: { ...stack("blog"), "platform.service": "api", "platform.job": "true" }, aliases: ["x.edge"] },
    ];
    expect([...(await hostsInUse())].sort()).toEqual(["blog-web-bold-beacon", "shop-api-amber-badger"]);
  });

  it("Words draws only words whose hosts are free: project a-b + service c beside project a + service b-c", async () => {
    const all = ADJECTIVES.flatMap((a) => NOUNS.map((n) => `${a}-${n}`));
    containers = all.filter((w) => w !== "quiet-otter").map((w, i) => publicContainer(`c${i}`, "a", `a-b-c-${w}`));
    const { outs } = await wordsHandler.create("urn", { seedName: "a-b-preview", hostPrefixes: ["a-b-c"] });
    expect(outs.words).toBe("quiet-otter");
  });

  it("new host prefixes never change the words of a stack", async () => {
    expect(wordsHandler.updatable).toEqual(["hostPrefixes"]);
    expect(
      await wordsHandler.update!("id", { seedName: "s", hostPrefixes: [], words: "calm-fern" }, { seedName: "s", hostPrefixes: ["s-api"] }),
    ).toEqual({ words: "calm-fern" });
  });

  it("a public container never starts under another stack's host; its own stack's older container is no conflict", async () => {
    containers = [
      publicContainer("mine-old", "shop", "shop-api-calm-fern"),
      publicContainer("theirs", "shop", "shop-web-calm-fern", "prod"),
    ];
    await expect(refuseTakenHost({ ...stack("shop"), "platform.public-host": "shop-api-calm-fern" })).resolves.toBeUndefined();
    await expect(refuseTakenHost({ ...stack("shop"), "platform.public-host": "shop-web-calm-fern" })).rejects.toThrow(
      'public host "shop-web-calm-fern" is already used by container theirs (project shop, env prod): two applications would share one URL',
    );
    await expect(refuseTakenHost(stack("shop"))).resolves.toBeUndefined();
  });
});
