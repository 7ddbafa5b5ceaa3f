"""Traffic service: fires bursts of requests at the catalog API.

GET /run?count=N sends N requests to API_URL and reports how they went. Every fifth
request asks for a product that does not exist, on purpose, so that the API's metrics show
404s next to 200s. Failures are reported in the `errors` count; /run itself always answers
200, so a caller (or a load test) can tell "the API failed" from "the driver failed".
"""

import asyncio
import os

import httpx
from fastapi import FastAPI

app = FastAPI(title="Catalog traffic", version="1.0.0")

DEFAULT_COUNT = 20
MAX_COUNT = 1000
# Enough to make a burst visible in request-rate charts without flooding a small API.
CONCURRENCY = 10
TIMEOUT_SECONDS = 10.0
KNOWN_PRODUCT_IDS = list(range(1, 11))
CATEGORIES = ["coffee", "equipment", "tableware", "supplies"]


def build_request(i: int) -> tuple[str, str, dict | None]:
    """The i-th request of a burst: a fixed rotation, so runs are reproducible."""
    if i % 5 == 4:
        return "GET", f"/products/{9000 + i}", None  # deliberate 404
    kind = i % 4
    product_id = KNOWN_PRODUCT_IDS[i % len(KNOWN_PRODUCT_IDS)]
    if kind == 0:
        return "GET", "/products", None
    if kind == 1:
        return "GET", f"/products/{product_id}", None
    if kind == 2:
        return "GET", f"/categories/{CATEGORIES[i % len(CATEGORIES)]}/products", None
    return "POST", "/orders", {"items": [{"product_id": product_id, "quantity": 1 + i % 3}]}


async def send_one(client: httpx.AsyncClient, gate: asyncio.Semaphore, i: int) -> bool:
    method, path, body = build_request(i)
    async with gate:
        try:
            response = await client.request(method, path, json=body)
        except (httpx.HTTPError, httpx.InvalidURL):
            # Connection refused, timeouts, bad URL...: the API failed, not /run.
            return False
    return response.is_success


@app.get("/run")
async def run(count: int = DEFAULT_COUNT) -> dict[str, int]:
    count = max(0, min(count, MAX_COUNT))
    api_url = os.environ.get("API_URL", "").rstrip("/")
    if not api_url or count == 0:
        return {"sent": count, "ok": 0, "errors": count}
    gate = asyncio.Semaphore(CONCURRENCY)
    limits = httpx.Limits(max_connections=CONCURRENCY, max_keepalive_connections=CONCURRENCY)
    try:
        client = httpx.AsyncClient(base_url=api_url, timeout=TIMEOUT_SECONDS, limits=limits)
    except httpx.InvalidURL:
        return {"sent": count, "ok": 0, "errors": count}
    async with client:
        results = await asyncio.gather(*(send_one(client, gate, i) for i in range(count)))
    ok = sum(results)
    return {"sent": count, "ok": ok, "errors": count - ok}


@app.get("/health")
def health() -> dict[str, str]:
    return {"status": "ok"}
