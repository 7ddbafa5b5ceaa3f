import { roleImages } from "../home/images.js";
import Docker from "dockerode";
import { docker, unlessGone } from "../docker-client.js";
import { remoteEngineAddress } from "../docker-ssh.js";
import type { BaseImageSet } from "../plan/types.js";

/**
 * The base images of a deploy on a server over SSH. The set-up builds them on this machine's
 * engine (Debian has no registry to pull them from); a server without them gets them once,
 * `docker save` here into `docker load` there, in one archive so shared layers travel once.
 * Images neither engine has are left to the server to pull (public ones). App images are
 * always built on the server: this is the only time images travel.
 */
export async function copyBaseImagesToServer(
  images: BaseImageSet,
  progress: (line: string) => void = () => {},
  /** Other base images the plan's recipes start from (a Python or Node version of the catalogues). */
  needed: readonly string[] = [],
): Promise<string[]> {
  if (!remoteEngineAddress()) return [];
  const wanted = [...new Set([...Object.values(roleImages(images)), ...(images.otelLayers ?? []), ...needed])];
  const server = docker();
  const missing = (
    await Promise.all(wanted.map(async (name) => ((await unlessGone(() => server.getImage(name).inspect())) ? [] : [name])))
  ).flat();
  if (missing.length === 0) return [];
  const local = new Docker({ socketPath: process.env.PLATFORM_LOCAL_DOCKER_SOCKET ?? "/var/run/docker.sock" });
  const here = (
    await Promise.all(
      missing.map(async (name) => ((await unlessGone(() => local.getImage(name).inspect()).catch(() => undefined)) ? [name] : [])),
    )
  ).flat();
  if (here.length === 0) return [];
  progress(`copying base images to the server: ${here.join(", ")}`);
  // dockerode has getImages (GET /images/get?names=...) but its types do not.
  const save = (local as unknown as { getImages(o: { names: string[] }): Promise<NodeJS.ReadableStream> }).getImages.bind(local);
  const archive = await save({ names: here });
  const answer = (await server.loadImage(archive, { quiet: true })) as unknown as NodeJS.ReadableStream;
  const said = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    answer.on("data", (c: Buffer) => chunks.push(c));
    answer.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    answer.on("error", reject);
    archive.on("error", reject);
  });
  if (/"error"/.test(said)) throw new Error(`the server refused the base images: ${said.trim()}`);
  return here;
}
