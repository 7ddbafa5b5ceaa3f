import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ok, parseUrls } from "./helpers/cli.js";
import { ownEdgeProject } from "./helpers/own-edge.js";
import { describeLoad, eventCount, eventPost, eventsPosted, LIGHT_LOAD, startLoad, unexplainedResends } from "./helpers/load.js";

/**
 * An upgrade of the edge: the set-up rebuilds Caddy under the same tag (a new version of the
 * platform, a patched build), and the next deploy replaces the running edge with one of the new
 * image, beside it on the same port, under an HTTP/1.1 + HTTP/2 load that loses no request; the
 * deploy after that leaves the edge alone. The load's GETs on a kept connection may be resent
 * once as a browser resends them silently when the old edge closes that connection; its POSTs,
 * which a browser would show as an error, may not fail, and each answered 201 is one row. The test tags its own copy of the set-up's Caddy image
 * (PLATFORM_CADDY_IMAGE) and builds the "new version" on it, so the shared tag is never touched.
 */
const own = ownEdgeProject("edgeup", "fullstack");
const { project, edge, cli, deploy } = own;
const image = `platform-test/${project}-caddy:1`;
const docker = (...args: string[]) => execFileSync("docker", args).toString().trim();
const edgeNow = () => docker("inspect", "-f", "{{.Id}} {{.Image}}", edge).split(" ");

describe("an edge upgrade: a Caddy rebuilt under the same tag replaces the running edge, losing no request", () => {
  beforeAll(async () => {
    const home = process.env.PLATFORM_HOME ?? join(process.env.HOME ?? "/root", ".platform");
    const setupCaddy = (JSON.parse(readFileSync(join(home, "images.json"), "utf8")) as { caddy: string }).caddy;
    execFileSync("docker", ["tag", setupCaddy, image]);
    await own.setUp({ PLATFORM_CADDY_IMAGE: image });
  });

  afterAll(async () => {
    await own.tearDown();
    execFileSync("sh", ["-c", `docker rmi -f ${image} >/dev/null 2>&1 || true`]);
  });

  it("replaces the edge at the next deploy, with no failed request, then leaves it alone", async () => {
    const urls = parseUrls(ok(await deploy()).stdout);
    const ca = ok(await cli("ca")).stdout;
    const [firstEdge, firstImage] = edgeNow();
    // The new version: the same Caddy under the same tag, as another image.
    execFileSync("docker", ["build", "-q", "-t", image, "-"], { input: `FROM ${image}\nLABEL platform.test.upgrade="${project}"\n` });
    expect(docker("image", "inspect", "-f", "{{.Id}}", image)).not.toBe(firstImage);

    const api = urls.api as string;
    const before = await eventCount(api, ca);
    const load = startLoad({
      ...LIGHT_LOAD,
      ca,
      maxRequests: 50_000,
      maxMs: 300_000,
      resends: "allowed",
      mix: [{ name: "GET api /health", url: `${api}/health` }, { name: "GET web /", url: `${urls.web}/` }, eventPost(api, "edge upgrade")],
    });
    await new Promise((r) => setTimeout(r, 2_000));
    load.setPhase("edge upgrade");
    const r = ok(await deploy());
    load.setPhase("after");
    await new Promise((r) => setTimeout(r, 2_000));
    const result = await load.stop();
    console.log(["[edge-upgrade] the deploy that replaced the edge, under load:", ...describeLoad(result)].join("\n"));
    expect(r.stdout).toContain("Deployment complete");
    expect(result.stoppedBy).toBe("stop");
    expect(result.failures.map((f) => `${f.protocol} ${f.request} (${f.phase}): ${f.what}`)).toEqual([]);
    expect(
      unexplainedResends(result, ["edge upgrade"], 1),
      "only what a browser resends silently when the edge hands over: a GET whose kept connection the old edge closed, once per connection, during the upgrade",
    ).toEqual([]);
    expect(eventsPosted(result), "POSTs answered 201").toBeGreaterThan(0);
    expect(await eventCount(api, ca), "every POST answered 201 is one row, no more").toBe(before + eventsPosted(result));
    const [secondEdge, secondImage] = edgeNow();
    expect(secondEdge, "the edge was replaced").not.toBe(firstEdge);
    expect(secondImage).toBe(docker("image", "inspect", "-f", "{{.Id}}", image));

    ok(await deploy());
    expect(edgeNow()[0], "a deploy with nothing new leaves the edge alone").toBe(secondEdge);
  }, 900_000);
});
