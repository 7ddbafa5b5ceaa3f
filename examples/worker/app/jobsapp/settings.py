"""Where the API, the worker and the periodic job find their database and their queue."""

import os

QUEUE = "jobs:queue"
PROCESSING_PREFIX = "jobs:processing:"
ALIVE_PREFIX = "jobs:alive:"


def database_url() -> str:
    return os.environ["DATABASE_URL"]


def sqlalchemy_url() -> str:
    """SQLAlchemy names its driver in the scheme; psycopg (3) is the one installed."""
    return database_url().replace("postgresql://", "postgresql+psycopg://", 1)


def redis_url() -> str:
    return os.environ["REDIS_URL"]
