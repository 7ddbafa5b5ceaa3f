import { defineConfig } from "vitepress";
import { githubSlug } from "../../scripts/check-docs.js";
import { DOCS_BASE } from "../../src/studio/docs-site.js";

// The site of docs/: `npm run docs` builds it into dist-docs/ and checks every link and anchor
// (scripts/check-docs.ts). Why VitePress: docs/internals/docs-site.md.

const guide = [
  { text: "Getting started", link: "/guide/getting-started" },
  { text: "Using platform", link: "/guide/using-platform" },
  { text: "Studio", link: "/guide/studio" },
  { text: "Backups and copies of your data", link: "/guide/backups" },
  { text: "Alerts: notify", link: "/guide/alerts" },
  { text: "When things go wrong", link: "/guide/when-things-go-wrong" },
  { text: "How a deploy works", link: "/guide/how-a-deploy-works" },
  { text: "Builds", link: "/guide/builds" },
  { text: "Repositories tried", link: "/guide/repositories-tried" },
  { text: "Secrets", link: "/guide/secrets" },
  { text: "TLS to the database", link: "/guide/database-tls" },
  { text: "Replicas and autoscaling", link: "/guide/replicas-and-autoscaling" },
  { text: "Workers, cron jobs, Redis", link: "/guide/workers-cron-redis" },
  { text: "Deploying to a server", link: "/guide/deploying-to-a-server" },
  { text: "Telemetry", link: "/guide/telemetry" },
  { text: "Using Pulumi directly", link: "/guide/using-pulumi-directly" },
  { text: "Kubernetes", link: "/guide/kubernetes" },
];

const reference = [
  { text: "platform.yml", link: "/reference/platform-yml" },
  { text: "Commands", link: "/reference/commands" },
  { text: "Exit codes", link: "/reference/exit-codes" },
  { text: "Settings", link: "/reference/settings" },
];

const operations = [
  { text: "Set-up", link: "/operations/setup" },
  { text: "Air-gapped install", link: "/operations/air-gapped" },
  { text: "platform doctor", link: "/operations/doctor" },
  { text: "Trusting the CA", link: "/operations/trusting-the-ca" },
];

const internals = [
  { text: "Architecture", link: "/internals/architecture" },
  { text: "Development", link: "/internals/development" },
  { text: "Tests", link: "/internals/tests" },
  { text: "The test cluster", link: "/internals/test-cluster" },
  { text: "Telemetry internals", link: "/internals/telemetry" },
  { text: "Benchmarks", link: "/internals/benchmarks" },
  { text: "The docs site", link: "/internals/docs-site" },
  { text: "Design: Kubernetes front door", link: "/design/kubernetes-front-door" },
];

export default defineConfig({
  title: "platform",
  description: "Deploy a multi-service app (FastAPI, Next.js, PostgreSQL) from one platform.yml, through Pulumi, onto Docker or Kubernetes",
  // Ignored by git, and not under dist/: the engine's code stamp covers every .js file there
  // (src/engine/program-fingerprint.ts), and a docs build must not look like a new platform.
  outDir: "../dist-docs",
  // Studio serves the built site at this path (src/studio/docs-site.ts), so its pages link here.
  base: DOCS_BASE,
  cacheDir: "../node_modules/.cache/vitepress",
  // A link to a page that does not exist fails the build (VitePress's default, said here on purpose).
  ignoreDeadLinks: false,
  lastUpdated: false,
  markdown: {
    // GitHub's heading ids, so that docs/x.md#anchor is the same link on GitHub and on the site.
    anchor: { slugify: githubSlug },
    // Inline code is shown as written: `{{.Dir}}` is Go's template, not Vue's (fenced code already is).
    config(md) {
      const render = md.renderer.rules.code_inline;
      md.renderer.rules.code_inline = (tokens, idx, options, env, self) => {
        tokens[idx]?.attrSet("v-pre", "");
        return render ? render(tokens, idx, options, env, self) : self.renderToken(tokens, idx, options);
      };
    },
  },
  themeConfig: {
    nav: [
      { text: "Guide", link: "/guide/getting-started" },
      { text: "Reference", link: "/reference/platform-yml" },
      { text: "Operations", link: "/operations/setup" },
      { text: "Internals", link: "/internals/development" },
    ],
    sidebar: [
      { text: "Guide", items: guide },
      { text: "Reference", items: reference },
      { text: "Operations", items: operations },
      { text: "Internals", items: internals },
    ],
    outline: [2, 3],
    search: { provider: "local" },
  },
});
