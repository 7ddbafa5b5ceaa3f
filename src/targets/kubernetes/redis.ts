import type * as k8s from "@pulumi/kubernetes";
import { appContainer } from "./specs.js";
import { createStatefulService, type StatefulArgs } from "./stateful.js";

/**
 * A redis service: the Docker target's image (images/redis), as a StatefulSet of one pod on its
 * claim. Its password comes in REDIS_PASSWORD from the service's env Secret; the image's
 * entrypoint writes it into a 0600 config file (never argv), and REDISCLI_AUTH lets the readiness
 * check (`redis-cli ping`, answered NOAUTH without it) and `platform exec` authenticate.
 * AOF files go to the claim, at the image's data directory.
 */
export function redisContainer(a: StatefulArgs): k8s.types.input.core.v1.Container {
  const s = a.service;
  return {
    ...appContainer(s, a.image, a.envSecret, a.imageSource),
    volumeMounts: [{ name: "data", mountPath: s.redis!.dataPath }],
    // The entrypoint starts as root to chown the data directory (fsGroup does not apply to a
    // hostPath volume), then drops to the redis user itself (setpriv: no escalation needed). No
    // preStop pause: no Service sends it requests it could drop, and it stops first anyway.
    lifecycle: undefined,
  };
}

export function createRedis(a: StatefulArgs): k8s.apps.v1.StatefulSet {
  return createStatefulService(a, {
    container: redisContainer(a),
    volumes: (claimName) => [{ name: "data", persistentVolumeClaim: { claimName } }],
  });
}
