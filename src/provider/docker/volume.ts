import { docker, unlessGone } from "../../docker-client.js";
import type { ResourceHandler } from "../handler.js";
import { decideVolume, type Labels, ownerFilters, SERVICE_KEYS } from "./ownership.js";

/**
 * platform:docker:Volume: a named volume. With `retain`, deleting the resource keeps the data
 * (retention: permanent); a later create adopts it, so a destroy followed by a deploy finds
 * its rows again. `platform destroy --delete-data` removes retained volumes. Only this
 * stack's and service's volume is ever adopted (see decideVolume), and its real name is the
 * output `volumeName`: containers mount that, not the planned name.
 */
export const volumeHandler: ResourceHandler = {
  inputKeys: ["name", "labels"],
  // Never replaced: a replacement would create (adopt) the same volume and then delete it as
  // the old one. A new planned name or label set keeps the volume that holds the data.
  updatable: ["name", "labels", "retain"],

  async create(_urn, inputs) {
    const wanted = String(inputs.name);
    const labels = inputs.labels as Labels;
    const byName = await unlessGone(() => docker().getVolume(wanted).inspect());
    const labelled = byName ? [] : ((await docker().listVolumes({ filters: { label: ownerFilters(labels, SERVICE_KEYS) } })).Volumes ?? []);
    const decision = decideVolume(wanted, byName, labelled, labels);
    if (decision.kind === "refuse") throw new Error(decision.message);
    let name = wanted;
    if (decision.kind === "adopt") name = decision.name;
    else await docker().createVolume({ Name: wanted, Labels: { ...labels, "platform.managed": "true" } });
    return { id: name, outs: { volumeName: name } };
  },

  async read(id) {
    const info = await unlessGone(() => docker().getVolume(id).inspect());
    return info && { volumeName: id };
  },

  async update(id) {
    return { volumeName: id };
  },

  async delete(id, props) {
    if (props.retain === true) return;
    await unlessGone(() => docker().getVolume(id).remove());
  },
};
