"""The API: enqueues jobs in Redis and reports what the worker wrote into PostgreSQL."""

import json

import psycopg
import redis
from fastapi import FastAPI

from jobsapp.settings import PROCESSING_PREFIX, QUEUE, database_url, redis_url

app = FastAPI(title="jobs")
queue = redis.Redis.from_url(redis_url(), decode_responses=True)


@app.get("/health")
def health() -> dict:
    queue.ping()
    return {"ok": True}


@app.post("/jobs")
def enqueue(batch: str, count: int = 1, start: int = 0) -> dict:
    """Jobs `<batch>-<start>` .. `<batch>-<start+count-1>`, pushed in one round trip."""
    payloads = [json.dumps({"id": f"{batch}-{i}", "n": i}) for i in range(start, start + count)]
    if payloads:
        queue.lpush(QUEUE, *payloads)
    return {"enqueued": len(payloads)}


@app.get("/stats")
def stats(batch: str) -> dict:
    with psycopg.connect(database_url()) as conn:
        done, redelivered = conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE deliveries > 1) FROM jobs_done WHERE job_id LIKE %s",
            (f"{batch}-%",),
        ).fetchone()
        workers = [w for (w,) in conn.execute("SELECT DISTINCT worker FROM jobs_done WHERE job_id LIKE %s", (f"{batch}-%",))]
    processing = sum(queue.llen(k) for k in queue.scan_iter(f"{PROCESSING_PREFIX}*"))
    return {"done": done, "redelivered": redelivered, "queued": queue.llen(QUEUE), "processing": processing, "workers": workers}


@app.get("/heartbeats")
def heartbeats() -> dict:
    with psycopg.connect(database_url()) as conn:
        rows = conn.execute("SELECT started_at, finished_at FROM heartbeats ORDER BY started_at").fetchall()
    return {"count": len(rows), "runs": [{"started": s.isoformat(), "finished": f.isoformat()} for s, f in rows]}
