import type { DiffResult } from "@pulumi/pulumi/provider/index.js";
import { changedKeys } from "./wire.js";

/**
 * One resource kind of the platform's Docker provider. Inputs reach a handler revealed
 * (no secret wrappers); the provider keeps the wrapped originals in the stored outputs.
 */
export interface ResourceHandler {
  /** Input keys compared by diff; a change to any of them replaces the resource, unless listed in `updatable`. */
  readonly inputKeys: readonly string[];
  readonly updatable?: readonly string[];
  /** Replace by deleting first (a database: never two servers on one data directory). */
  deleteBeforeReplace?(news: Record<string, unknown>): boolean;
  create(urn: string, inputs: Record<string, unknown>): Promise<{ id: string; outs: Record<string, unknown> }>;
  /** The engine's truth for refresh; undefined when the object is gone. */
  read(id: string, props: Record<string, unknown>): Promise<Record<string, unknown> | undefined>;
  update?(id: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<Record<string, unknown>>;
  delete(id: string, props: Record<string, unknown>): Promise<void>;
}

/** Diff by comparing input keys: replaces unless every changed key is updatable. */
export function diffByKeys(h: ResourceHandler, olds: Record<string, unknown>, news: Record<string, unknown>): DiffResult {
  const changed = changedKeys(olds, news, h.inputKeys);
  if (changed.length === 0) return { changes: false };
  const replaces = changed.filter((k) => !(h.updatable ?? []).includes(k));
  return {
    changes: true,
    replaces,
    deleteBeforeReplace: replaces.length > 0 && (h.deleteBeforeReplace?.(news) ?? false),
  };
}
