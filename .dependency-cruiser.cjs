/**
 * The layering rules of shared/design/ARCHITECTURE.md, checked over src/ by `npm run lint`
 * (and so in CI). The pipeline runs one way: config -> plan -> targets (through the provider's
 * types) -> engine -> cli / studio; runtime, telemetry and home sit beside it.
 * A rule's comment says why; a new exception goes here with its reason, never around the check.
 */
const rooms = (...names) => `^src/(${names.join("|")})(/|\\.ts$)`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A circle makes the order of module start-up matter and hides which room owns what.",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "targets-are-peers",
      severity: "error",
      comment: "The Docker and Kubernetes targets share only targets/shared: neither is the other's base.",
      from: { path: "^src/targets/(docker|kubernetes)/" },
      to: { path: "^src/targets/", pathNot: ["^src/targets/shared/", "^src/targets/$1/"] },
    },
    {
      name: "targets-import-shared-plan-provider",
      severity: "error",
      comment: "A target turns a plan into resources: it reads plan, config types and the provider's contract, nothing above it.",
      from: { path: "^src/targets/" },
      to: { path: "^src/", pathNot: [rooms("targets", "plan", "config", "provider", "errors")] },
    },
    {
      name: "shared-is-below-the-targets",
      severity: "error",
      comment: "targets/shared serves both targets and so may import neither.",
      from: { path: "^src/targets/shared/" },
      to: { path: "^src/targets/(docker|kubernetes)/" },
    },
    {
      name: "plan-is-pure",
      severity: "error",
      comment: "plan is a pure function of config (unit-tested with plain tables): no targets, engine, cli, runtime or I/O rooms.",
      from: { path: rooms("plan", "config") },
      to: { path: rooms("targets", "provider", "engine", "cli", "studio", "runtime", "telemetry", "home", "test-cluster", "pulumi-program", "notify") },
    },
    {
      name: "notify-stands-alone",
      severity: "error",
      comment:
        "notify sends a message to the team's channels (a signed webhook POST, e-mail over SMTP): it reads no stack, so the CLI, the engine and an agent beside an engine send the same way.",
      from: { path: rooms("notify") },
      to: { path: "^src/", pathNot: rooms("notify") },
    },
    {
      name: "config-stands-alone",
      severity: "error",
      comment: "config parses and validates platform.yml and knows nothing of plans.",
      from: { path: rooms("config") },
      to: { path: rooms("plan") },
    },
    {
      name: "provider-is-a-leaf",
      severity: "error",
      comment:
        "The provider serves the engine (in the CLI's process under `platform deploy`, a plugin process under `pulumi up`): it never calls back into the rooms that drive it.",
      from: { path: rooms("provider") },
      to: { path: rooms("targets", "engine", "cli", "studio", "runtime", "pulumi-program") },
    },
    {
      name: "provider-insides-for-the-engine",
      severity: "error",
      comment:
        "Outside the provider, only the engine reaches its insides (it attaches the provider to a stack, reads drift, settles prebuilds, pulls base images); targets, runtime, cli and studio read its contract (provider/contract: inputs, labels, wire and image constants) alone.",
      from: { path: "^src/", pathNot: [rooms("provider", "engine")] },
      to: { path: "^src/provider/", pathNot: "^src/provider/contract/" },
    },
    {
      name: "provider-contract-stands-alone",
      severity: "error",
      comment: "The contract is what both sides agree on: it imports nothing of the provider's insides, nor of the rooms above.",
      from: { path: "^src/provider/contract/" },
      to: { path: "^src/", pathNot: "^src/provider/contract/" },
    },
    {
      name: "runtime-reads-no-target",
      severity: "error",
      comment: "The runtime reads what a target made through the provider's contract (labels, names), never the target's code: a target may change without the runtime.",
      from: { path: rooms("runtime") },
      to: { path: rooms("targets", "pulumi-program") },
    },
    {
      name: "target-runtimes-behind-the-seam",
      severity: "error",
      comment:
        "cli and studio act on a stack through the TargetRuntime that the engine's stackRuntime/keptRuntime choose (runtime/target-runtime.ts): never through one target's runtime, so no caller branches on the target.",
      from: { path: rooms("cli", "studio") },
      to: { path: "^src/runtime/(docker-target|docker-cli|kubernetes-target|runtime-of|kube-[a-z-]+|kubernetes[a-z-]*)\\.ts$" },
    },
    {
      name: "engine-below-cli-and-studio",
      severity: "error",
      comment: "engine drives the program; cli and studio sit on top of it.",
      from: { path: rooms("engine", "data", "runtime", "telemetry", "home", "test-cluster") },
      to: { path: rooms("cli", "studio") },
    },
    {
      name: "data-above-runtime",
      severity: "error",
      comment:
        "The data room (backups, PITR, versions, copies) acts on a database through the runtime seam; the runtime never calls up into it, and neither does a target.",
      from: { path: rooms("runtime", "targets", "provider", "plan", "config") },
      to: { path: rooms("data") },
    },
    {
      name: "engine-calls-data-from-its-deploy-flow",
      severity: "error",
      comment:
        "The data room uses the engine's stacks (credentials, history, the stack's runtime); the engine calls back into it only where a deploy runs data steps around it (an upgrade, a copy): engine/deploy-flow.ts.",
      from: { path: rooms("engine"), pathNot: "^src/engine/deploy-flow\\.ts$" },
      to: { path: rooms("data") },
    },
    {
      name: "studio-reads-through-engine-runtime-telemetry",
      severity: "error",
      comment: "Studio reads what the engine recorded, the target's live state and the telemetry store, never the program or the CLI.",
      from: { path: rooms("studio") },
      to: { path: rooms("cli", "targets", "provider", "pulumi-program", "test-cluster") },
    },
    {
      name: "home-is-a-base",
      severity: "error",
      comment: "The platform home's layout is read by every room, so it imports none but plan's types.",
      from: { path: rooms("home") },
      to: { path: "^src/", pathNot: [rooms("home"), "^src/plan/types\\.ts$"] },
    },
    {
      name: "only-engine-uses-automation",
      severity: "error",
      comment: "engine is the only room that drives Pulumi's Automation API.",
      from: { path: "^src/", pathNot: rooms("engine") },
      to: { path: "node_modules/@pulumi/pulumi/automation" },
    },
    {
      name: "only-targets-use-pulumi-resources",
      severity: "error",
      comment: "Pulumi resources are made by the program's targets (and the program itself); the provider uses the SDK's provider side.",
      from: { path: "^src/", pathNot: [rooms("targets", "provider", "pulumi-program", "engine")] },
      to: { path: "node_modules/@pulumi/(pulumi|kubernetes)/" },
    },
    {
      name: "kubernetes-sdk-only-in-its-target",
      severity: "error",
      comment: "@pulumi/kubernetes objects belong to the Kubernetes target alone.",
      from: { path: "^src/", pathNot: "^src/targets/kubernetes/" },
      to: { path: "node_modules/@pulumi/kubernetes/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    includeOnly: ["^src/", "node_modules/@pulumi/"],
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"], extensions: [".ts", ".cts", ".js", ".cjs"] },
    moduleSystems: ["es6", "cjs"],
  },
};
