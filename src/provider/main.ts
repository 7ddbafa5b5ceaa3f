#!/usr/bin/env node
// Entry point of the `pulumi-resource-platform` plugin: the engine starts it and speaks gRPC to it.
// First: the SDK's closure-serialization modules load only if used (see the preload).
import "../preload/lazy-sdk-modules.cjs";
import { main } from "@pulumi/pulumi/provider/index.js";
import { connectEngine } from "../docker-ssh.js";
import { platformProvider } from "./provider.js";

// Its engine gone (killed with its CLI), the plugin stops at once: half-made objects are found
// by their labels on the next deploy, while a plugin left running could go on making them.
const engine = process.ppid;
setInterval(() => {
  if (process.ppid !== engine) process.exit(2);
}, 200).unref();
// No SIGINT handler: the engine stops its plugins with SIGINT when it closes (ignoring it made
// every deploy wait for the engine's kill timeout), and Ctrl-C in a terminal never reaches us:
// the engine runs in a session of its own (engine/workspace.ts).
process.umask(0o077);

// DOCKER_HOST=ssh:// (a `pulumi up` of an infra engineer's; under `platform deploy` the CLI's socket is inherited).
connectEngine()
  .then(() => main(platformProvider, process.argv.slice(2)))
  .catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
