"""The worker: a reliable queue on Redis lists, at least once, applied once.

- A job moves atomically from the queue to this worker's own processing list (BLMOVE), so a
  job is never only in the worker's memory: if the worker dies, the job is still in Redis.
- The job's effect is one idempotent statement (INSERT ... ON CONFLICT on the job id): a job
  delivered twice is applied once, and its `deliveries` count says it came again.
- Only after the commit does the job leave the processing list (LREM).
- Each worker refreshes `jobs:alive:<id>` (15 s TTL); a processing list whose owner is no longer
  alive is pushed back onto the queue by any live worker (recovery after a crash or a SIGKILL).
- On SIGTERM (a redeploy, `platform destroy`) the worker finishes the job in hand and exits:
  nothing is redelivered, so `deliveries` stays 1.
"""

import json
import os
import signal
import socket
import sys
import time
import uuid

import psycopg
import redis

from jobsapp.settings import ALIVE_PREFIX, PROCESSING_PREFIX, QUEUE, database_url, redis_url

WORKER_ID = f"{socket.gethostname()}-{uuid.uuid4().hex[:6]}"
PROCESSING = f"{PROCESSING_PREFIX}{WORKER_ID}"
ALIVE = f"{ALIVE_PREFIX}{WORKER_ID}"
JOB_SECONDS = float(os.environ.get("JOB_SECONDS", "0.01"))

stopping = False


def on_term(signum, _frame) -> None:
    global stopping
    stopping = True
    print(f"worker {WORKER_ID}: signal {signum}, finishing the job in hand", flush=True)


def recover(r: redis.Redis) -> int:
    """Jobs in the processing lists of workers that are gone go back to the head of the queue."""
    moved = 0
    for key in r.scan_iter(f"{PROCESSING_PREFIX}*"):
        owner = key[len(PROCESSING_PREFIX) :]
        if owner == WORKER_ID or r.exists(f"{ALIVE_PREFIX}{owner}"):
            continue
        while r.lmove(key, QUEUE, "RIGHT", "RIGHT") is not None:
            moved += 1
    if moved:
        print(f"worker {WORKER_ID}: {moved} jobs of stopped workers put back on the queue", flush=True)
    return moved


def main() -> None:
    if os.environ.get("CRASH_AT_START"):
        sys.exit(f"worker {WORKER_ID}: CRASH_AT_START is set, exiting (a worker that cannot start)")
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    r = redis.Redis.from_url(redis_url(), decode_responses=True)
    with psycopg.connect(database_url()) as conn:
        r.set(ALIVE, "1", ex=15)
        recover(r)
        print(f"worker {WORKER_ID}: started", flush=True)
        last_beat = time.monotonic()
        done = 0
        while not stopping:
            if time.monotonic() - last_beat > 5:
                r.set(ALIVE, "1", ex=15)
                recover(r)
                last_beat = time.monotonic()
            raw = r.blmove(QUEUE, PROCESSING, 1, "RIGHT", "LEFT")
            if raw is None:
                continue
            job = json.loads(raw)
            time.sleep(JOB_SECONDS)  # the work itself
            conn.execute(
                "INSERT INTO jobs_done (job_id, payload, worker) VALUES (%s, %s, %s) "
                "ON CONFLICT (job_id) DO UPDATE SET deliveries = jobs_done.deliveries + 1",
                (job["id"], json.dumps(job), WORKER_ID),
            )
            conn.commit()
            r.lrem(PROCESSING, 1, raw)
            done += 1
        r.delete(ALIVE)
        print(f"worker {WORKER_ID}: stopped cleanly after {done} jobs", flush=True)


if __name__ == "__main__":
    main()
