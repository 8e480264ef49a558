"""A long-running operation, as server-everything's trigger-long-running-operation: asked for 12,345 seconds it
works that long (here at most 20, and on its own thread, so the server goes on answering everything else).
With ``--drop-strings`` it also silently drops any call whose ``label`` is a string it dislikes: a real defect."""

import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny

tiny.TOOLS = [{
    "name": "long_operation", "description": "Run a long operation for `duration` seconds.",
    "annotations": {"readOnlyHint": True},
    "inputSchema": {"type": "object", "properties": {"duration": {"type": "number"}, "label": {"type": "string"}},
                    "required": ["duration"]},
}]
lock = threading.Lock()
original = tiny.answer


def reply(message: dict) -> None:
    with lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def operate(rid, arguments: dict) -> None:
    duration = arguments.get("duration")
    if isinstance(duration, (int, float)) and not isinstance(duration, bool) and duration > 0:
        time.sleep(min(duration, 20))
    reply({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "done"}]}})


for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    params = message.get("params") or {} if isinstance(message, dict) else {}
    if isinstance(message, dict) and message.get("method") == "tools/call" and params.get("name") == "long_operation":
        arguments = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
        label = arguments.get("label")
        if "--drop-strings" in sys.argv and isinstance(label, str) and ".." in label:
            continue  # dropped: never answered
        threading.Thread(target=operate, args=(message.get("id"), arguments), daemon=True).start()
        continue
    answer = original(message) if isinstance(message, dict) else None
    if answer is not None:
        reply(answer)
