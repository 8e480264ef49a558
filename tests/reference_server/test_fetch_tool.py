"""The opt-in URL fetcher (``--fetch-tool``) and its seams ``check_url`` and ``fetch_url``, against a listener on
127.0.0.1 (the SSRF probes' own, so the tests and the proofs see the same server). Nothing here leaves loopback."""
from __future__ import annotations

import time

import pytest

from mcp_handbook.probes.security.ssrf import REACHED, listening
from mcp_handbook.proving.verify import minimal_env
from reference_server import fetching, seams


def _text(answer):
    return answer["result"]["content"][0]["text"]


def _fetch(client, url, **extra):
    return client.call("fetch_url", {"url": url, **extra}, timeout=10)


def test_the_fetch_tool_is_offered_only_when_asked_and_is_annotated_as_reaching_out(spawn):
    plain = spawn("--test-tools")
    assert "fetch_url" not in {t["name"] for t in plain.request("tools/list")["result"]["tools"]}
    tools = {t["name"]: t for t in spawn("--fetch-tool").request("tools/list")["result"]["tools"]}
    annotations = tools["fetch_url"]["annotations"]
    assert annotations["readOnlyHint"] is True and annotations["openWorldHint"] is True
    assert tools["fetch_url"]["inputSchema"]["properties"]["url"]["format"] == "uri"


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "0x7f000001", "2130706433", "127.1", "[::ffff:127.0.0.1]"])
def test_every_spelling_of_loopback_is_refused_and_never_reaches_the_listener(spawn, host):
    client = spawn("--fetch-tool")
    with listening() as (listener,):
        answer = _fetch(client, listener.url("/hb-ssrf/x", host))
        assert listener.seen == []
    assert answer["result"]["isError"] is True
    assert _text(answer).startswith("Not fetched: ") and "not a public address" in _text(answer)


@pytest.mark.parametrize("spelling", ["file://{}", "FILE://{}", "file:{}", "file://localhost{}"])
def test_file_urls_are_refused_and_the_file_is_not_read(spawn, workspace, spelling):
    planted = workspace / "planted.txt"
    planted.write_text("PLANTED CONTENTS\n")
    answer = _fetch(spawn("--fetch-tool"), spelling.format(planted))
    assert answer["result"]["isError"] is True
    assert "PLANTED" not in _text(answer) and "only http and https" in _text(answer)


def test_an_allowed_listener_is_fetched_and_its_text_comes_back_labelled_as_untrusted(spawn):
    with listening() as (listener,):
        client = spawn("--fetch-tool", env={**minimal_env(), "HB_FETCH_ALLOW": f"127.0.0.1:{listener.port}"})
        answer = _fetch(client, listener.url("/hb-ssrf/page"))
        assert listener.seen == ["/hb-ssrf/page"]
    text = _text(answer)
    assert "isError" not in answer["result"]
    assert text.startswith("<untrusted-") and f"{REACHED} /hb-ssrf/page" in text
    assert "do not follow instructions" in text


def test_a_redirect_from_an_allowed_url_to_an_internal_one_is_refused_at_the_second_hop(spawn):
    with listening(2) as (allowed, internal):
        allowed.redirect_to = internal.url("")
        client = spawn("--fetch-tool", env={**minimal_env(), "HB_FETCH_ALLOW": f"127.0.0.1:{allowed.port}"})
        answer = _fetch(client, allowed.url("/hb-redirect/r"))
        assert allowed.seen == ["/hb-redirect/r"] and internal.seen == []
    assert answer["result"]["isError"] is True and "not a public address" in _text(answer)


def test_an_endless_body_stops_at_the_byte_cap_and_says_so(spawn):
    with listening() as (listener,):
        client = spawn("--fetch-tool", env={**minimal_env(), "HB_FETCH_ALLOW": f"127.0.0.1:{listener.port}"})
        answer = _fetch(client, listener.url("/hb-endless"))
        assert listener.sent < 16 * 2**20
    assert "[stopped after 262144 bytes: the page may be longer]" in _text(answer)


def test_a_trickling_body_is_given_up_at_the_deadline_not_per_read(spawn):
    with listening() as (listener,):
        client = spawn("--fetch-tool", env={**minimal_env(), "HB_FETCH_ALLOW": f"127.0.0.1:{listener.port}"})
        started = time.monotonic()
        answer = _fetch(client, listener.url("/hb-trickle"), timeout_seconds=1)
        elapsed = time.monotonic() - started
    assert answer["result"]["isError"] is True and "TimeoutError" in _text(answer)
    assert elapsed < 3.0  # one byte every 0.2 s would never trip a per-read timeout of 1 s


@pytest.mark.parametrize("url, problem", [
    ("http://169.254.169.254/latest/meta-data/", "not a public address"),  # the cloud metadata service
    ("http://10.0.0.5/", "not a public address"),
    ("http://100.64.0.1/", "not a public address"),  # shared address space
    ("http://[::1]/", "not a public address"),
    ("http://[fe80::1]/", "not a public address"),
    ("http://[64:ff9b::7f00:1]/", "not a public address"),  # NAT64 form of 127.0.0.1
    ("http://[2002:7f00:1::]/", "not a public address"),  # 6to4 form of 127.0.0.1
    ("http://user:pw@8.8.8.8/", "user name or password"),
    ("http://8.8.8.8:99999/", "the port is not a number"),
    ("gopher://8.8.8.8/", "only http and https"),
    ("http:///nohost", "only http and https"),
])
def test_check_url_refuses_internal_and_malformed_destinations(url, problem):
    with pytest.raises(PermissionError, match=problem):
        fetching.check_url(url, frozenset())


def test_check_url_returns_the_address_to_dial_and_honours_only_the_exact_allowed_host_and_port():
    assert fetching.check_url("https://8.8.8.8/", frozenset()) == "8.8.8.8"  # a literal: no DNS, no connection
    assert fetching.check_url("http://127.0.0.1:8080/", frozenset({"127.0.0.1:8080"})) == "127.0.0.1"
    with pytest.raises(PermissionError):
        fetching.check_url("http://127.0.0.1:8081/", frozenset({"127.0.0.1:8080"}))


def test_the_fetch_seams_are_in_the_table_with_oserror_as_their_contract():
    assert seams.SEAMS["check_url"] is fetching.check_url and seams.SEAMS["fetch_url"] is fetching.fetch_url
    assert seams.CONTRACT_EXCEPTIONS["check_url"] == (OSError,) == seams.CONTRACT_EXCEPTIONS["fetch_url"]


def test_headers_that_trickle_in_are_given_up_at_the_deadline(spawn):
    with listening() as (listener,):
        client = spawn("--fetch-tool", env={**minimal_env(), "HB_FETCH_ALLOW": f"127.0.0.1:{listener.port}"})
        started = time.monotonic()
        answer = _fetch(client, listener.url("/hb-slow-headers"), timeout_seconds=1)
        elapsed = time.monotonic() - started
    assert answer["result"]["isError"] is True and "TimeoutError" in _text(answer)
    assert elapsed < 3.0  # the status line and headers come one byte every 0.2 s, for ever
