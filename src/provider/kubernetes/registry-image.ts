import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { registryHostOf } from "../../test-cluster/configs.js";
import { docker } from "../../docker-client.js";
import type { ResourceHandler } from "../handler.js";
import { imageToPlace } from "./tag-as.js";

const run = promisify(execFile);

/** `HOST[:PORT][/PATH]` + an image of the engine → the repository and tag it is pushed as. */
export function registryTarget(registry: string, image: string): { repository: string; tag: string } {
  const at = image.indexOf("@");
  const ref = at >= 0 ? image.slice(0, at) : image;
  const colon = ref.lastIndexOf(":");
  const hasTag = colon > ref.lastIndexOf("/");
  const name = hasTag ? ref.slice(0, colon) : ref;
  // A name given with a registry host (ghcr.io/x/y) keeps only its path.
  const host = registryHostOf(name);
  const path = host ? name.slice(host.length + 1) : name;
  return { repository: `${registry}/${path}`, tag: hasTag ? ref.slice(colon + 1) : "latest" };
}

/** The digest `docker push` reports on its last line: `<tag>: digest: sha256:… size: N`. */
export function pushedDigest(output: string): string | undefined {
  return /digest: (sha256:[0-9a-f]{64})/.exec(output)?.[1];
}

/**
 * platform:kubernetes:RegistryImage: an image of the Docker engine pushed to the registry the
 * cluster pulls from (`platform deploy --registry`). The Docker CLI pushes, so `docker login`
 * credentials and credential helpers apply. Its id is the pushed reference by digest
 * (`HOST/PATH/NAME@sha256:…`), which pods run: a tag pushed again later never changes what a
 * pod runs. Deleting it leaves the image in the registry, for rollbacks and other environments.
 */
export const registryImageHandler: ResourceHandler = {
  inputKeys: ["image", "registry", "tagAs"],

  async create(_urn, inputs) {
    const image = await imageToPlace(inputs);
    const { repository, tag } = registryTarget(String(inputs.registry), image);
    await docker().getImage(image).tag({ repo: repository, tag });
    const cli = process.env.PLATFORM_DOCKER_CLI || "docker";
    let out: string;
    try {
      out = (await run(cli, ["push", `${repository}:${tag}`], { maxBuffer: 16 * 1024 * 1024 })).stdout;
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string; message: string };
      const text = `${err.stderr ?? ""}${err.stdout ?? ""}`.trim().split("\n").slice(-8).join("\n") || err.message;
      throw new Error(
        `push of ${image} to ${repository} failed:\n${text}\nhint: the registry must be reachable from here (docker login HOST when it needs credentials) and from the cluster's nodes`,
      );
    }
    const digest = pushedDigest(out);
    if (!digest) throw new Error(`push of ${image} to ${repository} printed no digest:\n${out.trim().split("\n").slice(-4).join("\n")}`);
    return { id: `${repository}@${digest}`, outs: { repository, tag, digest } };
  },

  // The registry is another machine's: what was pushed is taken to be there.
  async read() {
    return {};
  },

  async delete() {},
};
