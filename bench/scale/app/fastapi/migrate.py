# lifecycle.migrate of some generated services: a table of the service's own in the shared
# database (one table each, so that migrations running at once never race on one name).
import os

import psycopg

name = os.environ["SERVICE_NAME"]
with psycopg.connect(os.environ["DATABASE_URL"]) as conn:
    conn.execute(f"CREATE TABLE IF NOT EXISTS items_{name} (id serial PRIMARY KEY, note text)")
    conn.execute(f"INSERT INTO items_{name} (note) VALUES ('migrated')")
