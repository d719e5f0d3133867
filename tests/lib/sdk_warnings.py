"""A test fails when an MCP SDK logs a warning or worse while it runs.

The official SDKs log what they tolerate instead of raising it: the Python
SDK logs "Session termination failed: 202" when a server answers `DELETE
/mcp` with a status it does not accept, and goes on. Such a line is a
defect a user sees at the end of every session, so the suites treat it as a
failure. A test that provokes a warning on purpose says so with
`@pytest.mark.sdk_warns("why")`.
"""

import logging

import pytest

#: The loggers of the Python MCP SDK (`mcp`, `mcp.client.streamable_http`, ...).
SDK_LOGGER = "mcp"


def register(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sdk_warns(reason): the test expects the MCP SDK to log a warning")


@pytest.fixture(autouse=True)
def no_sdk_warnings(request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture):
    caplog.set_level(logging.WARNING, logger=SDK_LOGGER)
    yield
    if request.node.get_closest_marker("sdk_warns"):
        return
    said = [
        f"{record.name}: {record.levelname}: {record.getMessage()}"
        for when in ("setup", "call")
        for record in caplog.get_records(when)
        if record.name.split(".")[0] == SDK_LOGGER and record.levelno >= logging.WARNING
    ]
    assert not said, "the MCP SDK logged a warning (a defect a user would see):\n" + "\n".join(said)
