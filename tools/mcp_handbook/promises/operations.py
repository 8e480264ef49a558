"""Promises and preludes of the operations gate: the observable part of its manual rules, checked on the code
each block defines (a notification sent once per change, a rate limit that refuses, retries that stop, one audit
record per call, a shim that forwards and translates failures, subscriptions that notify and are bounded, a
version read from the package).

Every check drives the block's own functions with fixed inputs; the few servers it starts (a fake HTTP upstream,
a Unix-socket daemon) listen on 127.0.0.1 or in the block's temporary folder, and are stopped before it returns.
"""

from __future__ import annotations

import json
import re
import tempfile
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from ._operations_stand_ins import FileWatcher, RecordingSession, fake_upstream, in_thread, result_text, unix_daemon
from .registry import Broken, prelude, promise


# --- OPS-005: notifications/tools/list_changed once per real change -------------------------------------------

prelude("tool_table", '''
def read_file(arguments): return {"content": [{"type": "text", "text": "..."}]}
def search_files(arguments): return {"content": [{"type": "text", "text": "..."}]}
def delete_project(arguments): return {"content": [{"type": "text", "text": "deleted"}]}
BASE_TOOLS = {"read_file": read_file, "search_files": search_files}
''')


@promise("list_changed_when_it_changes",
         "set_admin(True, True, False, False): one notifications/tools/list_changed per change of the listed tools, "
         "none otherwise, and listChanged declared",
         reasons={"change_not_notified": "the listed tools changed and no notifications/tools/list_changed was sent",
                  "notified_without_change": "notifications/tools/list_changed was sent when the listed tools had not changed",
                  "not_declared": "the tool set changes, but the capabilities do not declare tools.listChanged"},
         seconds=10)
def list_changed_when_it_changes(block: ModuleType) -> None:
    sent: list[dict[str, Any]] = []
    server = block.Server(sent.append)

    def notes() -> int:
        return sum(1 for m in sent if isinstance(m, dict) and m.get("method") == "notifications/tools/list_changed")

    for admin in (True, True, False, False):
        before, count = sorted(server.tools), notes()
        server.set_admin(admin)
        changed, new = sorted(server.tools) != before, notes() - count
        if changed and new != 1:
            raise Broken("change_not_notified", f"set_admin({admin}) changed the tools from {before} to "
                         f"{sorted(server.tools)} and sent {new} notification(s)")
        if not changed and new:
            raise Broken("notified_without_change", f"set_admin({admin}) left the tools as {before} and sent {new} "
                         "notification(s)")
    if not (server.capabilities.get("tools") or {}).get("listChanged"):
        raise Broken("not_declared", f"capabilities {server.capabilities!r}")


# --- OPS-015: a rate limit and a concurrency cap per caller, refusals that say when to retry ------------------

_SECONDS = re.compile(r"(\d+(?:\.\d+)?)\s*(?:s|sec|secs|seconds?)\b", re.I)


@promise("calls_rate_limited",
         "100 calls in a row from one caller: refusals start, at once, as isError results naming a wait; another "
         "caller still runs; ten calls at once run at most a few at a time",
         reasons={"no_limit": "every one of 100 calls in a row from one caller ran",
                  "slow_refusal": "a call over the limit took more than half a second to be refused",
                  "no_retry_hint": "a refusal does not say how many seconds to wait",
                  "other_caller_refused": "another caller was refused because of the first caller's calls",
                  "no_concurrency_cap": "ten calls at once from one caller all ran at the same time"},
         seconds=20)
def calls_rate_limited(block: ModuleType) -> None:
    ran: list[str] = []

    def echo(arguments: dict[str, Any]) -> dict[str, Any]:
        ran.append("echo")
        return {"content": [{"type": "text", "text": "ok"}]}

    tools = {"echo": echo}
    results = [block.call_tool("echo", {"n": n}, "alice", tools) for n in range(100)]
    refused = [r for r in results if isinstance(r, dict) and r.get("isError") is True]
    if not refused:
        raise Broken("no_limit", f"{len(ran)} of 100 calls from one caller ran, none was refused")
    began = time.monotonic()
    again = block.call_tool("echo", {}, "alice", tools)
    if time.monotonic() - began > 0.5:
        raise Broken("slow_refusal", f"the 101st call took {time.monotonic() - began:.1f} s to come back")
    hint = _SECONDS.search(result_text(refused[0]))
    if hint is None or float(hint.group(1)) <= 0:
        raise Broken("no_retry_hint", f"the refusal says {result_text(refused[0])!r}")
    other = block.call_tool("echo", {}, "bob", tools)
    if not isinstance(other, dict) or other.get("isError"):
        raise Broken("other_caller_refused", f"bob's first call, after alice's 101: {other!r} (alice: {result_text(again)!r})")
    gate, running, peak, lock = threading.Event(), [0], [0], threading.Lock()

    def slow(arguments: dict[str, Any]) -> dict[str, Any]:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        gate.wait(5)
        with lock:
            running[0] -= 1
        return {"content": [{"type": "text", "text": "done"}]}

    workers = [threading.Thread(target=block.call_tool, args=("slow", {}, "carol", {"slow": slow}), daemon=True)
               for _ in range(10)]
    for worker in workers:
        worker.start()
    time.sleep(0.3)
    gate.set()
    for worker in workers:
        worker.join(5)
    if peak[0] >= 10:
        raise Broken("no_concurrency_cap", "ten calls from one caller ran at the same time")


# --- OPS-017: retries only when safe, bounded, after Retry-After, inside the deadline -------------------------


@promise("retries_bounded",
         "against a fake upstream: 503, 503, 201 succeeds with one idempotency key; 503 for ever ends after a few "
         "attempts; 400 is not retried; Retry-After is waited for; the deadline holds",
         reasons={"unbounded_retries": "an upstream that always answers 503 was tried more than five times, or still after 8 s",
                  "retried_without_key": "a POST was sent again without the Idempotency-Key of the first attempt",
                  "retried_client_error": "a 400 answer was retried",
                  "ignored_retry_after": "the next attempt came sooner than the upstream's Retry-After",
                  "deadline_overrun": "the call went on more than a second past its deadline"},
         seconds=40)
def retries_bounded(block: ModuleType) -> None:
    body = b'{"title": "printer on fire"}'
    with fake_upstream([503]) as (url, seen):
        began = time.monotonic()
        done, _value, _error = in_thread(lambda: block.create_ticket(url, body, time.monotonic() + 30), 8,
                                          enough=lambda: len(seen) > 5)
        if not done or len(seen) > 5:
            raise Broken("unbounded_retries", f"{len(seen)} attempts in {time.monotonic() - began:.1f} s against an "
                         "upstream that always answers 503" + ("" if done else ", and still retrying"))
    with fake_upstream([503, 503, 201]) as (url, seen):
        done, _value, error = in_thread(lambda: block.create_ticket(url, body, time.monotonic() + 30), 8)
        keys = {s["key"] for s in seen if s["method"] == "POST"}
        if len(seen) > 1 and (None in keys or len(keys) != 1):
            raise Broken("retried_without_key", f"{len(seen)} POSTs with Idempotency-Key {sorted(map(str, keys))}")
        if error is not None:
            raise error
    with fake_upstream([400]) as (url, seen):
        in_thread(lambda: block.create_ticket(url, body, time.monotonic() + 30), 8)
        if len(seen) > 1:
            raise Broken("retried_client_error", f"a 400 was sent {len(seen)} times")
    with fake_upstream([429, 201], retry_after="1") as (url, seen):
        in_thread(lambda: block.create_ticket(url, body, time.monotonic() + 30), 8)
        if len(seen) > 1 and seen[1]["at"] - seen[0]["at"] < 0.9:
            raise Broken("ignored_retry_after", f"Retry-After: 1, and the next attempt came "
                         f"{seen[1]['at'] - seen[0]['at']:.2f} s later")
    with fake_upstream([503]) as (url, seen):
        began = time.monotonic()
        in_thread(lambda: block.create_ticket(url, body, began + 0.3), 8)
        if time.monotonic() - began > 1.3:
            raise Broken("deadline_overrun", f"a call given 0.3 s ended after {time.monotonic() - began:.1f} s")


# --- OPS-010: one fixed-shape, pseudonymous audit record per call ---------------------------------------------

_AUDIT_FIELDS = {"ts", "action", "tool", "client", "outcome"}


@promise("one_audit_record",
         "three calls audited: three JSON lines in audit.jsonl with only the fixed fields, a stable pseudonym, the "
         "reason only on a refusal",
         reasons={"not_one_record_per_call": "audit.jsonl does not hold exactly one JSON line per audited call",
                  "unexpected_field": "a record lacks a fixed field or carries one that is not in the fixed set",
                  "identity_in_record": "a record holds the caller's raw identity",
                  "unstable_pseudonym": "the same caller got two pseudonyms, or two callers the same one"},
         seconds=10)
def one_audit_record(block: ModuleType) -> None:
    calls = [("read_file", "alice@example.com", "ok", None),
             ("read_file", "alice@example.com", "refused", "path_outside_workspace"),
             ("append_note", "bob@example.com", "tool_error", None)]
    for tool, identity, outcome, reason in calls:
        block.audit(tool, identity, outcome, reason=reason)
    lines = Path("audit.jsonl").read_text(encoding="utf-8").splitlines()
    try:
        records = [json.loads(line) for line in lines]
    except json.JSONDecodeError as exc:
        raise Broken("not_one_record_per_call", f"a line of audit.jsonl is not JSON: {exc}") from None
    if len(records) != len(calls) or not all(isinstance(r, dict) for r in records):
        raise Broken("not_one_record_per_call", f"{len(calls)} calls, {len(records)} line(s): {lines!r}")
    for record, (_tool, identity, outcome, reason) in zip(records, calls):
        wanted = _AUDIT_FIELDS | ({"reason"} if reason else set())
        if set(record) != wanted or record["outcome"] != outcome:
            raise Broken("unexpected_field", f"record {record!r}; expected exactly the fields {sorted(wanted)}")
        if identity in json.dumps(record) or identity.split("@")[0] in json.dumps(record):
            raise Broken("identity_in_record", f"record {record!r}")
    clients = [r["client"] for r in records]
    if clients[0] != clients[1] or clients[0] == clients[2]:
        raise Broken("unstable_pseudonym", f"clients {clients} for alice, alice, bob")


# --- OPS-011: the shim forwards to the daemon and turns its absence into a tool error -------------------------


@promise("shim_forwards",
         "no daemon, a daemon that answers, a daemon that died: the call is forwarded as it came and every failure "
         "is an isError result",
         reasons={"failure_not_translated": "with the daemon absent or dead, the call raised or did not return an isError result",
                  "not_forwarded": "with the daemon up, the request or its answer did not pass through unchanged"},
         seconds=15)
def shim_forwards(block: ModuleType) -> None:
    folder = tempfile.mkdtemp(prefix="hb-sock-", dir=".")
    vars(block)["SOCKET_PATH"] = str(Path(folder).resolve() / "daemon.sock")

    def absent(when: str) -> None:
        try:
            result = block.search({"query": "release notes"})
        except Exception as exc:  # noqa: BLE001 - an exception escaping the shim is the defect
            raise Broken("failure_not_translated", f"{when}: search() raised {type(exc).__name__}: {exc}") from None
        if not isinstance(result, dict) or result.get("isError") is not True:
            raise Broken("failure_not_translated", f"{when}: search() returned {result!r}")

    absent("no daemon running")
    found = {"hits": [{"path": "notes/2026-11.md", "score": 0.9}]}
    with unix_daemon(block.SOCKET_PATH, found) as received:
        result = block.search({"query": "release notes"})
    asked = received[0] if received else None
    if asked != {"method": "search", "params": {"query": "release notes"}} or result.get("structuredContent") != found:
        raise Broken("not_forwarded", f"the daemon received {asked!r}; the shim returned {result!r}")
    absent("the daemon died (its socket file left behind)")


# --- OPS-012: a subscription is validated, bounded, notified and released ------------------------------------


@promise("subscriptions_kept",
         "subscribe, change the file, escape the root, subscribe a thousand times, unsubscribe: a notification for "
         "the change, a refusal for the escape, a bound, silence after unsubscribing",
         reasons={"update_not_sent": "a subscribed resource changed and no notifications/resources/updated named it",
                  "escaping_uri_accepted": "a URI that resolves outside the root was subscribed",
                  "unbounded_subscriptions": "one session held a thousand subscriptions",
                  "notified_after_unsubscribe": "a change after resources/unsubscribe was still notified"},
         seconds=15)
def subscriptions_kept(block: ModuleType) -> None:
    from reference_server import seams

    resolve = seams.DEFAULTS["resolve_resource"]
    root = Path(tempfile.mkdtemp(prefix="hb-root-", dir=".")).resolve()
    (root / "notes.txt").write_text("first\n", encoding="utf-8")
    session, watcher = RecordingSession(), FileWatcher()
    uri = "file:///notes.txt"
    block.on_subscribe(uri, session, resolve, root, watcher)
    watcher.change(root / "notes.txt")
    if ("notifications/resources/updated", {"uri": uri}) not in session.sent:
        raise Broken("update_not_sent", f"subscribed to {uri}, changed the file; sent: {session.sent!r}")
    watches = len(watcher.watches)
    try:
        block.on_subscribe("file:///../outside.txt", session, resolve, root, watcher)
    except Exception:  # noqa: BLE001 - any refusal will do; the server maps it to its error
        pass
    else:
        raise Broken("escaping_uri_accepted", "on_subscribe('file:///../outside.txt') returned normally")
    if len(watcher.watches) != watches:
        raise Broken("escaping_uri_accepted", "a watch was set up for 'file:///../outside.txt'")
    accepted = 0
    for n in range(1000):
        try:
            block.on_subscribe(f"file:///many/{n}.txt", session, resolve, root, watcher)
            accepted += 1
        except Exception:  # noqa: BLE001
            break
    if accepted >= 1000:
        raise Broken("unbounded_subscriptions", "1,000 subscriptions accepted from one session")
    block.on_unsubscribe(uri, session)
    sent = len(session.sent)
    watcher.change(root / "notes.txt")
    if len(session.sent) != sent:
        raise Broken("notified_after_unsubscribe", f"after unsubscribing: {session.sent[sent:]!r}")


# --- OPS-006: the version comes from the package, and CI asks for a bump --------------------------------------

prelude("reports_mcp_installed", '''
import os as _os
import sys as _sys
_site = _os.path.abspath("site-packages")
_info = _os.path.join(_site, "reports_mcp-1.4.2.dist-info")
_os.makedirs(_info, exist_ok=True)
with open(_os.path.join(_info, "METADATA"), "w", encoding="utf-8") as _f:
    _f.write("Metadata-Version: 2.1\\nName: reports-mcp\\nVersion: 1.4.2\\n")
_sys.path.insert(0, _site)
''')


@promise("version_from_package", "serverInfo.version is the installed package's version (reports-mcp 1.4.2)",
         reasons={"version_not_package_version": "the server reports a version other than its package's"}, seconds=20)
def version_from_package(block: ModuleType) -> None:
    from importlib.metadata import version

    installed = version("reports-mcp")
    if block.server.version != installed:
        raise Broken("version_not_package_version", f"serverInfo.version {block.server.version!r}, package {installed!r}")


@promise("surface_change_needs_version",
         "check() on four pairs of listings: it fails only when the surface changed and the version did not",
         reasons={"unchanged_version_passed": "a changed tools/list with the same version was let through",
                  "false_alarm": "check() failed when the surface did not change or the version did"}, seconds=10)
def surface_change_needs_version(block: ModuleType) -> None:
    tool = {"name": "summarise", "description": "Summarise a report.", "inputSchema": {"type": "object"}}
    other = {"name": "export", "description": "Export a report.", "inputSchema": {"type": "object"}}
    edited = {**tool, "description": "Summarise a report in at most 200 words."}
    cases = [("same tools, other order, same version", [tool, other], [other, tool], "1.4.0", "1.4.0", False),
             ("description edited, same version", [tool, other], [edited, other], "1.4.0", "1.4.0", True),
             ("description edited, new version", [tool, other], [edited, other], "1.4.0", "1.4.1", False),
             ("tool removed, same version", [tool, other], [tool], "1.4.0", "1.4.0", True)]
    for n, (what, before, after, old, new, must_fail) in enumerate(cases):
        Path(f"previous{n}.json").write_text(json.dumps({"tools": before}), encoding="utf-8")
        Path(f"current{n}.json").write_text(json.dumps({"tools": after}), encoding="utf-8")
        try:
            block.check(f"previous{n}.json", f"current{n}.json", old, new)
            failed = False
        except SystemExit as exc:
            failed = exc.code not in (0, None)
        if must_fail and not failed:
            raise Broken("unchanged_version_passed", what)
        if failed and not must_fail:
            raise Broken("false_alarm", what)
