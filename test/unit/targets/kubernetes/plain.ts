import * as pulumi from "@pulumi/pulumi";
import { expect } from "vitest";

/**
 * The plain value inside one of @pulumi/kubernetes's `Input`s, which the spec builders fill
 * with plain values: fails the test when it is an Output, a Promise or missing, so that a
 * test can read the fields of a spec it built.
 */
export function plain<T>(x: pulumi.Input<T> | undefined): T {
  expect(x, "a plain value").toBeDefined();
  expect(pulumi.Output.isInstance(x), "not an Output").toBe(false);
  expect(x instanceof Promise, "not a Promise").toBe(false);
  return x as T;
}
