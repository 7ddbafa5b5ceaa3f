import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkMarkdownFiles, checkSite, githubSlug, markdownAnchors, repositoryMarkdown } from "../../../scripts/check-docs.js";

/** A directory of files from a map of relative path to content. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "check-docs-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const page = (body: string) => `<!DOCTYPE html><html><body><a href="#VPContent">Skip</a><div id="VPContent">${body}</div></body></html>`;

/** A built site as VitePress writes it: pages as .html, links with and without the extension. */
const goodSite = {
  "index.html": page(
    '<h1 id="platform">platform</h1><a href="/guide/start.html#a-five-minute-tour">tour</a><a href="./guide/start">clean URL</a><a href="/">home</a>',
  ),
  "guide/start.html": page(
    '<h2 id="a-five-minute-tour">A five-minute tour</h2><a href="../reference/yml.html#errors-in-platformyml">errors</a>' +
      '<a href="https://example.com/x#y">outside</a><a href="mailto:ops@example.com">mail</a><img src="/assets/shot.png" alt="">',
  ),
  "reference/yml.html": page('<h2 id="errors-in-platformyml">Errors in platform.yml</h2><a href="#errors-in-platformyml">#</a>'),
  "assets/shot.png": "png",
};

describe("the built site's links", () => {
  it("passes a site whose every page and anchor exists", () => {
    expect(checkSite(tree(goodSite))).toEqual([]);
  });

  it("fails on one broken anchor, naming the page, the link and the missing id", () => {
    const site = tree({ ...goodSite, "guide/start.html": goodSite["guide/start.html"].replace("#errors-in-platformyml", "#errors") });
    expect(checkSite(site)).toEqual([
      { file: "guide/start.html", link: "../reference/yml.html#errors", reason: 'no element with the id "errors" on reference/yml.html' },
    ]);
  });

  it("fails on an anchor of the same page, a missing page and a missing image", () => {
    const site = tree({
      ...goodSite,
      "reference/yml.html": page(
        '<h2 id="top">Top</h2><a href="#nowhere">x</a><a href="/guide/gone.html">y</a><img src="../assets/none.png">',
      ),
    });
    expect(checkSite(site).map((b) => `${b.file} ${b.link}`)).toEqual([
      "guide/start.html ../reference/yml.html#errors-in-platformyml",
      "reference/yml.html #nowhere",
      "reference/yml.html /guide/gone.html",
      "reference/yml.html ../assets/none.png",
    ]);
  });

  it("fails when there is no site at all", () => {
    expect(checkSite(tree({ "README.txt": "" }))[0]?.reason).toMatch(/no HTML page/);
  });
});

describe("markdown links, as GitHub follows them", () => {
  const repo = {
    "README.md": [
      "# Project",
      "See [the tour](docs/start.md#a-five-minute-tour), [errors](docs/ref.md#errors-in-platformyml),",
      "[the second Notes](docs/ref.md#notes-1), [top](#project), [a screenshot](docs/shot.png) and [a site](https://example.com/#x).",
      "`[not a link](docs/nowhere.md)` is code.",
      "```md",
      "[nor is this](docs/nowhere.md)",
      "```",
    ].join("\n"),
    "docs/start.md": "# Start\n\n## A five-minute tour\n",
    "docs/ref.md": "# Reference\n\n## Errors in platform.yml\n\n## Notes\n\n## Notes\n",
    "docs/shot.png": "png",
  };

  it("passes links to files and headings that exist, and ignores code and other sites", () => {
    expect(checkMarkdownFiles(tree(repo), ["README.md"])).toEqual([]);
  });

  it("fails on a heading the target does not have, and on a file that does not exist", () => {
    const dir = tree({
      ...repo,
      "README.md": `${repo["README.md"]}\n[bad anchor](docs/start.md#five-minute-tour) and [bad file](docs/guide.md)`,
    });
    expect(checkMarkdownFiles(dir, ["README.md"])).toEqual([
      { file: "README.md:8", link: "docs/start.md#five-minute-tour", reason: 'no heading with the id "five-minute-tour" in docs/start.md' },
      { file: "README.md:8", link: "docs/guide.md", reason: "no such file: docs/guide.md" },
    ]);
  });

  it("gives headings GitHub's ids", () => {
    expect(githubSlug("platform.yml reference")).toBe("platformyml-reference");
    expect(githubSlug("Workers, cron jobs, Redis and one-off commands")).toBe("workers-cron-jobs-redis-and-one-off-commands");
    expect(githubSlug("On a managed cluster (EKS, GKE, AKS, DOKS, k3s, ...)")).toBe("on-a-managed-cluster-eks-gke-aks-doks-k3s-");
    expect([...markdownAnchors("## Service fields: `services.<name>`\n```sh\n# not a heading\n```\n## `lifecycle.migrate`")]).toEqual([
      "service-fields-servicesname",
      "lifecyclemigrate",
    ]);
  });
});

describe("this repository's documentation", () => {
  it("README.md and every page of docs/ link only to files and headings that exist", () => {
    expect(checkMarkdownFiles(".", repositoryMarkdown("."))).toEqual([]);
  });

  it("README.md stays a front page: at most 300 lines", () => {
    expect(readFileSync("README.md", "utf8").trimEnd().split("\n").length).toBeLessThanOrEqual(300);
  });

  it("every page of docs/ is in the site's sidebar", () => {
    const config = readFileSync("docs/.vitepress/config.mts", "utf8");
    const pages = repositoryMarkdown(".")
      .filter((f) => f.startsWith("docs/") && f !== "docs/index.md")
      .map((f) => `/${f.slice("docs/".length, -".md".length)}`);
    expect(pages.filter((p) => !config.includes(`link: "${p}"`))).toEqual([]);
  });
});
