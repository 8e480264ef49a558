"""Verdicts a careful human signs (issue 25): classes of false verdicts the hand checks of real servers found
(benchmarks/handchecks/), each pinned by a check that failed before its fix."""

from __future__ import annotations

from mcp_handbook.audit.powers import powers
from mcp_handbook.probes.judging import judge_each_tool
from mcp_handbook.probes.support import MAX_LISTED, Target, listed

STRING = {"type": "string"}


def _tool(name: str, description: str = "", **props) -> dict:
    return {"name": name, "description": description, "inputSchema": {"type": "object", "properties": props}}


# -- counts and the rows listed agree (server-everything: "13 of 13" beside 12 tools) ----------------------------

def test_a_finding_lists_every_row_it_counts_up_to_the_bound_and_says_the_rest() -> None:
    assert listed([f"r{i}" for i in range(13)]) == [f"r{i}" for i in range(13)]
    many = listed([f"r{i}" for i in range(MAX_LISTED + 7)])
    assert len(many) == MAX_LISTED + 1 and many[-1] == "… and 7 more"


def test_judging_every_tool_lists_each_tool_it_counts(tmp_path) -> None:
    tools = [_tool(f"tool-{i}") for i in range(13)]
    target = Target(argv=[], workspace=tmp_path, env={}, canary="c")
    target.listing = tools
    finding = judge_each_tool(target, lambda t: [("bad", f"{t['name']}: bad")], reasons={"bad": "x"}, kept="k",
                              broken="are bad")
    assert finding.summary == "13 of 13 tool(s) are bad"
    assert [row.split(":")[0] for row in finding.evidence] == [f"tool-{i}" for i in range(13)], "tool-12 was dropped"


# -- the powers line (server-everything: get-env not named; a data: parameter is not a fetcher) ----------------

def test_a_tool_that_returns_the_environment_is_named_among_the_powers() -> None:
    found = dict(powers([
        _tool("get-env", "Returns all environment variables, helpful for debugging MCP server configuration"),
        _tool("print_environ"),
        _tool("list_environments", "Lists the deployment environments (staging, production)."),
        _tool("get-sum", "Returns the sum of two numbers", a={"type": "number"}),
    ]))
    assert found["reads the process environment (where its secrets are)"] == ["get-env (its name)", "print_environ (its name)"]


def test_a_data_uri_parameter_is_not_a_url_fetcher_but_a_url_or_data_uri_one_is() -> None:
    inline = _tool("upload_image", data={**STRING, "format": "uri", "description": "The image as a data: URI (base64)"})
    plain = _tool("store", data={**STRING, "description": "The bytes to store"})
    gzip = _tool("gzip-file-as-resource", data={**STRING, "format": "uri",
                                                "description": "URL or data URI of the file content to compress"})
    found = dict(powers([inline, plain, gzip]))
    assert found["fetches URLs it is given"] == ["gzip-file-as-resource (parameter 'data')"]
