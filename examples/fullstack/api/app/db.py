"""Database access: one psycopg connection pool for the process, plain SQL.

The schema belongs to Alembic (migrations/); this module only reads and writes rows.
"""

import os
from urllib.parse import urlsplit, urlunsplit

from psycopg_pool import ConnectionPool


def database_url() -> str:
    url = os.environ.get("DATABASE_URL", "")
    if not url:
        raise RuntimeError("DATABASE_URL is not set (e.g. postgresql://user:pass@database:5432/db)")
    return url


def to_libpq_url(url: str) -> str:
    """libpq accepts postgresql:// and postgres://, not SQLAlchemy's postgresql+driver://."""
    parts = urlsplit(url)
    if parts.scheme.startswith("postgresql+") or parts.scheme.startswith("postgres+"):
        return urlunsplit(parts._replace(scheme="postgresql"))
    return url


def to_sqlalchemy_url(url: str) -> str:
    """SQLAlchemy picks its driver from the scheme; ours is psycopg 3, not psycopg2."""
    parts = urlsplit(url)
    if parts.scheme in ("postgresql", "postgres"):
        return urlunsplit(parts._replace(scheme="postgresql+psycopg"))
    return url


def create_pool() -> ConnectionPool:
    # open=False + open(wait=False): the API starts (and answers /health with 503) even
    # while the database is still coming up, instead of crashing in a restart loop.
    pool = ConnectionPool(
        to_libpq_url(database_url()),
        min_size=1,
        max_size=10,
        timeout=5,
        open=False,
        kwargs={"connect_timeout": 3},
    )
    pool.open(wait=False)
    return pool


def ping(pool: ConnectionPool) -> None:
    with pool.connection() as conn:
        conn.execute("SELECT 1")


def read_status(pool: ConnectionPool) -> tuple[int, str]:
    with pool.connection() as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM events),"
            " (SELECT message FROM events ORDER BY created_at DESC, id DESC LIMIT 1)"
        ).fetchone()
    assert row is not None
    return int(row[0]), row[1] or ""


def insert_event(pool: ConnectionPool, message: str) -> dict:
    with pool.connection() as conn:
        row = conn.execute(
            "INSERT INTO events (message) VALUES (%s) RETURNING id, message, created_at",
            (message,),
        ).fetchone()
    assert row is not None
    return {"id": row[0], "message": row[1], "created_at": row[2]}


def list_events(pool: ConnectionPool, limit: int) -> list[dict]:
    with pool.connection() as conn:
        rows = conn.execute(
            "SELECT id, message, created_at FROM events ORDER BY created_at DESC, id DESC LIMIT %s",
            (limit,),
        ).fetchall()
    return [{"id": r[0], "message": r[1], "created_at": r[2]} for r in rows]
