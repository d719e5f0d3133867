"""A store in a schema of its own on the PostgreSQL test server, for the suite's PostgreSQL runs.

`M1ND_TEST_PG` names the server (`scripts/pg-cluster.sh up` prints it). Without it a test that
needs one is skipped, and under CI (`CI` set) it fails instead. Rows are read with Debian's
`psql`, so the suite needs no Python driver.
"""

from __future__ import annotations

import itertools
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from psql import psql  # noqa: E402

#: `M1ND_E2E_STORE=postgresql` runs the suite on PostgreSQL stores, HTTP servers as two replicas
#: behind HAProxy (tests/e2e/run.sh --postgresql).
BACKEND = os.environ.get("M1ND_E2E_STORE", "sqlite")
_SCHEMAS = itertools.count()


class PgLocation(str):
    """A store location on PostgreSQL: the URL `--store` takes, with its server and schema, and a
    directory for the logs of the servers started on it (where a store directory's parent
    would hold them)."""

    server: str
    schema: str
    parent: Path

    @classmethod
    def of(cls, server: str, schema: str) -> PgLocation:
        location = cls(f"{server}?options=-c%20search_path%3D{schema}")
        location.server, location.schema = server, schema
        location.parent = Path(tempfile.mkdtemp(prefix=f"m1nd-{schema}-"))
        return location

    @property
    def name(self) -> str:
        return self.schema


def server_url() -> str:
    url = os.environ.get("M1ND_TEST_PG")
    if not url:
        if os.environ.get("CI"):
            pytest.fail("M1ND_TEST_PG is unset under CI: start a server with scripts/pg-cluster.sh up")
        pytest.skip('M1ND_TEST_PG is unset (start a server: eval "$(bash scripts/pg-cluster.sh up)")')
    return url


def new_schema(prefix: str = "e2e") -> PgLocation:
    """An empty schema of its own, as a store location."""
    server = server_url()
    schema = f"{prefix}_{os.getpid()}_{next(_SCHEMAS)}"
    psql(server, f"DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}")
    return PgLocation.of(server, schema)


def drop(location: PgLocation) -> None:
    psql(location.server, f"DROP SCHEMA IF EXISTS {location.schema} CASCADE")
    shutil.rmtree(location.parent, ignore_errors=True)


def claims(location: PgLocation) -> set[str]:
    return set(psql(location.server, f"SELECT claim FROM {location.schema}.memories"))


def digest(location: PgLocation) -> dict[str, str]:
    """A digest of every table's rows, by table: equal exactly when the store holds the same."""
    tables = psql(
        location.server,
        f"SELECT table_name FROM information_schema.tables WHERE table_schema = '{location.schema}' ORDER BY 1",
    )
    if not tables:
        return {}
    each = (
        f"SELECT '{t}', md5(coalesce(string_agg(r::text, E'\\n' ORDER BY r::text), '')) FROM {location.schema}.{t} r"
        for t in tables
    )
    return dict(row.split("|", 1) for row in psql(location.server, " UNION ALL ".join(each)))
