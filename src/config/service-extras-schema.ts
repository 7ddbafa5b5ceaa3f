import { z } from "zod";

/** Service fields that depend on its type. `auth:` on a redis service: how its clients authenticate (docs/guide/workers-cron-redis.md). */
export const REDIS_AUTH = ["password", "none"] as const;

export const redisAuthSchema = z
  .enum(REDIS_AUTH)
  .describe(
    'How clients of a redis service authenticate: "password" (a generated password, in ${<service>.url}) or "none", for apps that configure Redis by host and port only (arq RedisSettings(host, port), broadcaster 0.2) as with docker compose\'s redis image: any container on the stack\'s network may use it, nothing outside it reaches it. redis only. Default "password".',
  )
  .meta({ examples: ["none"] });

/** `health.command` on a worker: what says it works, beyond running (a consumer connected to its broker). */
export const workerHealthCommand = z
  .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
  .describe(
    "A worker's health check: a command run inside its container after it starts, retried until it exits 0 (e.g. celery -A app inspect ping -d celery@$HOSTNAME: the worker answers through its broker), or the deploy fails with the worker's last log lines. A string runs under sh -c, a list as it is. Workers only. Without it a worker is healthy when it keeps running for 5 s.",
  )
  .meta({ examples: ["celery -A app inspect ping -d celery@$HOSTNAME"] });

/** `health:` http on fastapi and nextjs services, command on a worker (rules-health.ts keeps them apart). */
export const healthSchema = z
  .strictObject({
    http: z
      .string()
      .regex(/^\//)
      .describe(
        'Path of an HTTP endpoint that answers 2xx when the service is ready, starting with "/". The service is only sent traffic once it does.',
      )
      .meta({ examples: ["/health"] })
      .optional(),
    command: workerHealthCommand.optional(),
  })
  .describe(
    "Health check: http on fastapi and nextjs services, command on a worker (else a worker is healthy while it keeps running). Not allowed on postgres or redis services: the platform checks databases itself.",
  )
  .meta({ examples: [{ http: "/health" }] });

/** The most copies of one service (`replicas:`). */
export const MAX_REPLICAS = 20;

/** `replicas:` on fastapi, nextjs and worker services (rules-services.ts refuses it on data services). */
export const replicasSchema = z
  .number()
  .int()
  .min(1)
  .max(MAX_REPLICAS)
  .describe(
    `How many copies of the service run, all behind its one URL (public) and its one internal name: containers on Docker, pods of its Deployment on Kubernetes (spread across nodes). A deploy starts the new copies one at a time, each healthy before the next, and stops the old ones once all new ones serve. fastapi, nextjs and worker services; 1 to ${MAX_REPLICAS}. Default 1.`,
  )
  .meta({ examples: [3] });

/** The target CPU of `scale:` when it is not written: percent of the service's CPU (resources.cpus). */
export const DEFAULT_SCALE_CPU = 70;

/**
 * `scale:` on fastapi, nextjs and worker services: copies follow CPU load between min and max.
 * Cross-field rules (max >= min, not with replicas, not on data services) are in rules-scale.ts.
 */
export const scaleSchema = z
  .strictObject({
    min: z
      .number()
      .int()
      .min(1)
      .max(MAX_REPLICAS)
      .default(1)
      .describe(`The fewest copies that run, however idle the service is. 1 to ${MAX_REPLICAS}. Default 1.`)
      .meta({ examples: [2] }),
    max: z
      .number()
      .int()
      .min(1)
      .max(MAX_REPLICAS)
      .describe(`The most copies that run, however busy the service is. At least min, at most ${MAX_REPLICAS}.`)
      .meta({ examples: [5] }),
    cpu: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(DEFAULT_SCALE_CPU)
      .describe(
        `The CPU use, in percent of the service's CPUs (its resources preset's: small 0.5, medium 1, large 2), that the average copy is kept at: above it copies are added (up to max), below it removed (down to min). 1 to 100. Default ${DEFAULT_SCALE_CPU}.`,
      )
      .meta({ examples: [60] }),
  })
  .describe(
    "Autoscaling: on Kubernetes a HorizontalPodAutoscaler keeps the average copy's CPU near cpu percent of the service's CPUs, between min and max copies (on the test cluster it added copies about 20 s into a load and removed them about 40 s after it ended). On Docker, which has no autoscaler, min copies run and the deploy says so. fastapi, nextjs and worker services; instead of replicas.",
  )
  .meta({ examples: [{ min: 1, max: 5, cpu: 60 }] });
