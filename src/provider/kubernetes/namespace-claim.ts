import type { ResourceHandler } from "../handler.js";
import { kubectlOn } from "./kubectl.js";
import type { NamespaceClaimInputs } from "../contract/kubernetes-inputs.js";

import { foreignOwner } from "../contract/labels.js";

export type { NamespaceClaimInputs };

/** The namespace's labels; undefined when there is none (or the cluster cannot be read: the namespace's own create says why). */
async function namespaceLabels(i: NamespaceClaimInputs): Promise<Record<string, string> | undefined> {
  const out = await kubectlOn(i.kubeconfig, ["get", "namespace", i.namespace, "--ignore-not-found", "-o", "json"]).catch(() => "");
  return out.trim() ? ((JSON.parse(out) as { metadata: { labels?: Record<string, string> } }).metadata.labels ?? {}) : undefined;
}

/**
 * A stack's namespace is `<project>-<env>`, so two stacks can name the same one (project `a-b`
 * in `c`, project `a` in `b-c`). The Kubernetes provider adopts an existing namespace (server-side
 * apply), and a destroy would then delete the other stack's objects with it. The CLI refuses
 * that before it builds anything; this claim refuses it in the program too, for a plain
 * `pulumi up`: the namespace depends on it, so nothing in the namespace is touched.
 */
export const namespaceClaimHandler: ResourceHandler = {
  inputKeys: ["kubeconfig", "namespace", "project", "env"],
  updatable: ["kubeconfig"],
  async create(_urn, inputs) {
    const i = inputs as unknown as NamespaceClaimInputs;
    const owner = foreignOwner(await namespaceLabels(i), i.project, i.env);
    if (owner)
      throw new Error(
        `the Kubernetes namespace ${i.namespace} of ${i.project} (${i.env}) already exists and belongs to ${owner}; nothing was deployed in it. Deploy under another project or environment name, or to another cluster`,
      );
    return { id: i.namespace, outs: {} };
  },
  // A claim is a check, not an object: it stays as long as the stack does.
  async read(_id, props) {
    return props;
  },
  async update(_id, _olds, news) {
    return news;
  },
  async delete() {},
};
