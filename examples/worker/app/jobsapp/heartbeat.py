"""The periodic job: one heartbeat row per run, with when it started and finished."""

import datetime
import os
import time

import psycopg

from jobsapp.settings import database_url


def main() -> None:
    started = datetime.datetime.now(datetime.timezone.utc)
    time.sleep(float(os.environ.get("HEARTBEAT_SECONDS", "1")))
    with psycopg.connect(database_url()) as conn:
        conn.execute(
            "INSERT INTO heartbeats (started_at, finished_at) VALUES (%s, %s)",
            (started, datetime.datetime.now(datetime.timezone.utc)),
        )
    print(f"heartbeat written (started {started.isoformat()})", flush=True)


if __name__ == "__main__":
    main()
