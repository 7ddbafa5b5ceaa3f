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
  /**
   * Keys of the stored outputs (as the last refresh read them) that force a replacement
   * whatever the inputs: a container that no longer runs is replaced, not left for dead.
   */
  forceReplace?(olds: Record<string, unknown>): string[];
  create(urn: string, inputs: Record<string, unknown>): Promise<{ id: string; outs: Record<string, unknown> }>;
  /** The engine's truth for refresh; undefined when the object is gone. */
  read(id: string, props: Record<string, unknown>): Promise<Record<string, unknown> | undefined>;
  update?(id: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<Record<string, unknown>>;
  delete(id: string, props: Record<string, unknown>): Promise<void>;
}

/**
 * Diff by comparing input keys: replaces unless every changed key is updatable. Always new
 * before old: a database's create stops the old server itself (see stop-first.ts), so it can
 * start it again when the new one fails.
 */
export function diffByKeys(h: ResourceHandler, olds: Record<string, unknown>, news: Record<string, unknown>): DiffResult {
  const forced = h.forceReplace?.(olds) ?? [];
  const changed = changedKeys(olds, news, h.inputKeys);
  if (changed.length === 0 && forced.length === 0) return { changes: false };
  const replaces = [...forced, ...changed.filter((k) => !(h.updatable ?? []).includes(k))];
  return { changes: true, replaces, deleteBeforeReplace: false };
}
