"""Alembic environment: migrations run online against DATABASE_URL."""

from alembic import context
from sqlalchemy import create_engine, pool

from app.db import database_url, to_sqlalchemy_url

config = context.config
if config.config_file_name is not None:
    from logging.config import fileConfig

    fileConfig(config.config_file_name)

# No ORM models: migrations are written by hand with op.* calls.
target_metadata = None


def run_migrations_offline() -> None:
    context.configure(url=to_sqlalchemy_url(database_url()), literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    # The URL goes straight to create_engine rather than through alembic.ini, where a "%"
    # in a generated password would be read as interpolation.
    engine = create_engine(to_sqlalchemy_url(database_url()), poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
