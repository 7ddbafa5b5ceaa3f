#!/usr/bin/env node
// Entry point of the `pulumi-resource-platform` plugin: the engine starts it and speaks gRPC to it.
import { main } from "@pulumi/pulumi/provider/index.js";
import { dockerProvider } from "./provider.js";

main(dockerProvider, process.argv.slice(2)).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
