"""jobs_done and heartbeats

Revision ID: 0001
Revises:
Create Date: 2026-11-26
"""

from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE jobs_done (
            job_id text PRIMARY KEY,
            payload jsonb NOT NULL,
            worker text NOT NULL,
            deliveries integer NOT NULL DEFAULT 1,
            done_at timestamptz NOT NULL DEFAULT now()
        )
        """
    )
    op.execute(
        """
        CREATE TABLE heartbeats (
            id serial PRIMARY KEY,
            started_at timestamptz NOT NULL,
            finished_at timestamptz NOT NULL
        )
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE heartbeats")
    op.execute("DROP TABLE jobs_done")
