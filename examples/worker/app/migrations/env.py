"""Alembic environment: migrations run online against DATABASE_URL."""

from alembic import context
from sqlalchemy import create_engine, pool

from jobsapp.settings import sqlalchemy_url

config = context.config
if config.config_file_name is not None:
    from logging.config import fileConfig

    fileConfig(config.config_file_name)

target_metadata = None


def run_migrations_online() -> None:
    # Straight to create_engine, not through alembic.ini, where a "%" in a password is interpolation.
    engine = create_engine(sqlalchemy_url(), poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()


run_migrations_online()
