"""Full-stack example API: status and events, backed by PostgreSQL.

Environment:
- DATABASE_URL: postgresql://user:pass@host:5432/db (given by the platform as ${database.url})
- CORS_ORIGINS: comma-separated origins allowed to call this API from a browser
  (the platform gives the frontend's public URL). The example frontend calls the API from
  its server, so CORS only matters to browser code that calls the API directly.
"""

import logging
import os
from contextlib import asynccontextmanager
from datetime import datetime

import psycopg
from fastapi import FastAPI, HTTPException, Request, status
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from psycopg_pool import PoolTimeout
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from app import db

log = logging.getLogger("fullstack.api")

# Errors that mean "the database is unavailable", as opposed to bugs in this code.
DB_ERRORS = (psycopg.Error, PoolTimeout)


def parse_cors_origins(value: str) -> list[str]:
    # Browsers send origins without a trailing slash; a pasted URL often has one.
    return [o.strip().rstrip("/") for o in value.split(",") if o.strip()]


@asynccontextmanager
async def lifespan(app: FastAPI):
    app.state.pool = db.create_pool()
    try:
        yield
    finally:
        app.state.pool.close()


app = FastAPI(title="Full-stack example API", version="1.0.0", lifespan=lifespan)
app.add_middleware(
    CORSMiddleware,
    allow_origins=parse_cors_origins(os.environ.get("CORS_ORIGINS", "")),
    allow_methods=["GET", "POST"],
    allow_headers=["Content-Type"],
)


class EventIn(BaseModel):
    message: str = Field(min_length=1, max_length=500)


class Event(BaseModel):
    id: int
    message: str
    created_at: datetime


class Status(BaseModel):
    api: str
    database: str
    event_count: int
    latest_event: str


@app.get("/health", tags=["ops"])
async def health(request: Request):
    try:
        await run_in_threadpool(db.ping, request.app.state.pool)
    except DB_ERRORS as exc:
        log.warning("health: database unavailable: %s", exc)
        return JSONResponse(
            {"status": "error", "database": "error"}, status_code=status.HTTP_503_SERVICE_UNAVAILABLE
        )
    return {"status": "ok", "database": "ok"}


@app.get("/api/status", tags=["events"])
async def read_status(request: Request) -> Status:
    # Always 200: the page that shows this wants to say "database: error", not fail.
    try:
        count, latest = await run_in_threadpool(db.read_status, request.app.state.pool)
    except DB_ERRORS as exc:
        log.warning("status: database unavailable: %s", exc)
        return Status(api="ok", database="error", event_count=0, latest_event="")
    return Status(api="ok", database="ok", event_count=count, latest_event=latest)


@app.post("/api/events", tags=["events"], status_code=status.HTTP_201_CREATED)
async def create_event(event: EventIn, request: Request) -> Event:
    try:
        row = await run_in_threadpool(db.insert_event, request.app.state.pool, event.message)
    except DB_ERRORS as exc:
        log.warning("create event: database unavailable: %s", exc)
        raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, detail="database unavailable")
    return Event(**row)


@app.get("/api/events", tags=["events"])
async def list_events(request: Request, limit: int = 20) -> list[Event]:
    limit = max(1, min(limit, 100))
    try:
        rows = await run_in_threadpool(db.list_events, request.app.state.pool, limit)
    except DB_ERRORS as exc:
        log.warning("list events: database unavailable: %s", exc)
        raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, detail="database unavailable")
    return [Event(**r) for r in rows]
