import { type NotifyChannel, SECRET_REF } from "../config/index.js";
import type { ResolvedChannel } from "../notify/send.js";
import { projectSigningKey } from "../notify/sign.js";
import type { Credentials } from "./credentials.js";
import { secretKey } from "./secret-names.js";
import { selectExistingStack } from "./workspace.js";

/** A channel that cannot be used as written (a secret not set): said, never sent to. */
export interface UnusableChannel {
  readonly channel: string;
  readonly error: string;
}

/**
 * platform.yml's notify: channels with their `${secrets.NAME}` values, read from the
 * environment's encrypted settings (never printed); a webhook without `secret:` signs with the
 * project's own key (notify/sign.ts).
 */
export async function resolveChannels(
  project: string,
  env: string,
  creds: Credentials,
  channels: readonly NotifyChannel[],
): Promise<{ channels: ResolvedChannel[]; unusable: UnusableChannel[] }> {
  const stack = await selectExistingStack(project, env, creds);
  const unusable: UnusableChannel[] = [];
  const value = async (text: string | undefined, where: string): Promise<string | undefined> => {
    const name = text === undefined ? undefined : SECRET_REF.exec(text)?.[1];
    if (name === undefined) return text;
    const found = stack ? await stack.getConfig(secretKey(name)).catch(() => undefined) : undefined;
    if (found === undefined)
      throw new Error(
        `secret ${name} (${where}) is not set in ${env}: platform secrets set ${name}${env === "preview" ? "" : ` --env ${env}`}`,
      );
    return found.value;
  };
  const out: ResolvedChannel[] = [];
  for (const c of channels) {
    const events = c.events ? { events: c.events } : {};
    try {
      if (c.webhook)
        out.push({
          kind: "webhook",
          url: c.webhook,
          key: (await value(c.secret, "secret")) ?? projectSigningKey(creds.passphrase, project),
          ...events,
        });
      else if (c.email) {
        const user = await value(c.email.user, "email.user");
        const password = await value(c.email.password, "email.password");
        out.push({
          kind: "email",
          to: c.email.to,
          smtp: c.email.smtp,
          ...(c.email.from ? { from: c.email.from } : {}),
          ...(user ? { user } : {}),
          ...(password ? { password } : {}),
          ...events,
        });
      }
    } catch (e) {
      unusable.push({ channel: c.webhook ? new URL(c.webhook).origin : `mailto:${c.email?.to.join(",")}`, error: (e as Error).message });
    }
  }
  return { channels: out, unusable };
}
