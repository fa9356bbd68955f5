"""Trigram indexes for the review console's text search and tag filters, on PostgreSQL only.

`q=` matches words anywhere in the request, the answer and the tool names (`UPPER(col) LIKE UPPER('%word%')`, which
Django's `icontains` writes), and the provider, tool and junction filters match `,code,` inside the tag columns
(`LIKE '%,code,%'`). Without an index each is a scan of the whole table; GIN trigram indexes on exactly those
expressions let PostgreSQL answer them from the index. SQLite has no such index type: there the migration does
nothing and the filters scan as before.
"""

from django.db import migrations

INDEXES = (
    ("datasets_traj_request_trgm", 'UPPER("request") gin_trgm_ops'),
    ("datasets_traj_answer_trgm", 'UPPER("answer") gin_trgm_ops'),
    ("datasets_traj_tools_up_trgm", 'UPPER("tool_tags") gin_trgm_ops'),
    ("datasets_traj_tools_trgm", '"tool_tags" gin_trgm_ops'),
    ("datasets_traj_providers_trgm", '"provider_tags" gin_trgm_ops'),
    ("datasets_traj_junctions_trgm", '"junction_tags" gin_trgm_ops'),
)


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    # pg_trgm is a trusted extension (PostgreSQL 13+): the database's owner may create it without superuser.
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for name, expression in INDEXES:
        schema_editor.execute(f'CREATE INDEX IF NOT EXISTS "{name}" ON "datasets_trajectory" USING gin ({expression})')


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, _expression in INDEXES:
        schema_editor.execute(f'DROP INDEX IF EXISTS "{name}"')


class Migration(migrations.Migration):
    dependencies = [("datasets", "0002_review_console")]

    operations = [migrations.RunPython(create, drop)]
