import os

from fastapi import FastAPI

app = FastAPI()
NAME = os.environ.get("SERVICE_NAME", "?")


@app.get("/health")
def health():
    return {"ok": True}


@app.get("/")
def index():
    return {"service": NAME, "kind": "fastapi", "database": bool(os.environ.get("DATABASE_URL"))}
