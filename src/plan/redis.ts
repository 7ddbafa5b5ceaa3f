import type { ServiceConfig, TemplatePart } from "../config/index.js";
import { stackName } from "./naming.js";
import type { HealthSpec, PlanContext, RedisSpec } from "./types.js";

/** Where the Redis image keeps its AOF files (images/redis: `dir /data`). */
export const REDIS_DATA_PATH = "/data";
/** The public image stands in where the set-up recorded none (images.json "redis"). */
export const PUBLIC_REDIS_IMAGE = "redis:7";

export function redisSpec(s: ServiceConfig, ctx: PlanContext): RedisSpec {
  return {
    volumeName: stackName(ctx.project, ctx.env, s.name, "data"),
    retain: s.resources.retention !== "delete",
    dataPath: REDIS_DATA_PATH,
    ...(s.resources.storage ? { storage: s.resources.storage } : {}),
    ...(s.auth === "none" ? { passwordless: true as const } : {}),
  };
}

/**
 * The image's interface (images/redis/docker-entrypoint.sh): REDIS_PASSWORD becomes requirepass
 * in a 0600 config file. REDISCLI_AUTH is how redis-cli (the health check, `platform exec`) gets
 * it without putting it on a command line.
 */
export function redisEnv(s: ServiceConfig): Record<string, TemplatePart[]> {
  // auth: none: the image's entrypoint requires a password; REDIS_NO_PASSWORD_COMMAND clears it.
  if (s.auth === "none") return { REDIS_PASSWORD: [{ kind: "text", text: "none" }] };
  const password: TemplatePart[] = [{ kind: "ref", service: s.name, property: "password" }];
  return { REDIS_PASSWORD: password, REDISCLI_AUTH: password };
}

/**
 * auth: none. Arguments after the config file override it, so an empty requirepass clears the
 * entrypoint's. The official image's entrypoint passes such arguments on too (PLATFORM_BASE_IMAGES=public;
 * not tried here, it cannot be pulled).
 */
export const REDIS_NO_PASSWORD_COMMAND = ["redis-server", "--requirepass", ""];

/** Ready when it answers PING with the password (a wrong or missing one answers NOAUTH). */
export const REDIS_HEALTH: HealthSpec = { kind: "exec", command: ["sh", "-c", "redis-cli -h 127.0.0.1 ping | grep -qx PONG"] };
