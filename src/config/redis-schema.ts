import { z } from "zod";

/** `auth:` on a redis service: how its clients authenticate (README "Workers, cron jobs, Redis"). */
export const REDIS_AUTH = ["password", "none"] as const;

export const redisAuthSchema = z
  .enum(REDIS_AUTH)
  .describe(
    'How clients of a redis service authenticate: "password" (a generated password, in ${<service>.url}) or "none", for apps that configure Redis by host and port only (arq RedisSettings(host, port), broadcaster 0.2) as with docker compose\'s redis image: any container on the stack\'s network may use it, nothing outside it reaches it. redis only. Default "password".',
  )
  .meta({ examples: ["none"] });
