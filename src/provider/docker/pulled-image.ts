import { docker, unlessGone } from "../../docker-client.js";
import type { ResourceHandler } from "../handler.js";
import type { PulledImageInputs } from "../contract/docker-inputs.js";

export type { PulledImageInputs };

async function imageId(ref: string): Promise<string | undefined> {
  return (await unlessGone(() => docker().getImage(ref).inspect()))?.Id;
}

async function pull(ref: string, label: string): Promise<void> {
  try {
    const stream = await docker().pull(ref);
    await new Promise<void>((resolve, reject) =>
      docker().modem.followProgress(stream, (err: Error | null, events: { error?: string }[]) => {
        const failed = err?.message ?? events.find((e) => e.error)?.error;
        if (failed) reject(new Error(failed));
        else resolve();
      }),
    );
  } catch (e) {
    throw new Error(
      `${label}: image ${ref} is not on this engine and pulling it failed: ${(e as Error).message}\nhint: check the name and tag, log the engine in to the registry (docker login), or load the image (docker load) first`,
    );
  }
}

/**
 * A prebuilt image: the engine's copy when it has one, else pulled. Its `hash` output is the
 * image id, which containers run and the deployment record keeps, so a rollback runs the exact
 * image even when the tag has moved since. A refresh that finds the tag pointing at another id
 * (pulled or loaded anew) replaces the resource, and so the containers that run it.
 */
export const pulledImageHandler: ResourceHandler = {
  inputKeys: ["tag", "pinnedId"],
  forceReplace: (olds) => (olds.current !== undefined && olds.current !== olds.hash ? ["tag"] : []),

  async create(_urn, inputs) {
    const i = inputs as unknown as PulledImageInputs;
    if (i.pinnedId) {
      const id = await imageId(i.pinnedId);
      if (!id)
        throw new Error(
          `image ${i.tag} (${i.pinnedId}) of ${i.label} is gone, so that deployment cannot be redeployed exactly; platform deployments shows which ones can be rolled back to`,
        );
      return { id: i.tag, outs: { hash: id, current: id, pulled: false } };
    }
    let id = await imageId(i.tag);
    const pulled = id === undefined;
    if (!id) {
      await pull(i.tag, i.label);
      id = await imageId(i.tag);
      if (!id) throw new Error(`${i.label}: image ${i.tag} was pulled but the engine does not have it`);
    }
    return { id: i.tag, outs: { hash: id, current: id, pulled } };
  },

  async read(id, props) {
    // What the tag names now: a change makes the next diff replace (forceReplace).
    const current = props.pinnedId ? props.hash : await imageId(id);
    return { ...props, current: current ?? props.hash };
  },

  // A prebuilt image belongs to whoever made it: never removed by the platform.
  async delete() {},
};
