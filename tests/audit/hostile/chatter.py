"""An ordinary server (tiny) that also sends a progress-free log notification every 2 ms, whatever it is asked."""

import threading
import time

import tiny

lock = threading.Lock()
plain_write = tiny.write


def write(message: dict, *, pad: int = 0) -> None:
    with lock:  # one writer at a time: the notifications never split an answer
        plain_write(message, pad=pad)


def chatter() -> None:
    n = 0
    while True:
        n += 1
        write({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "debug", "data": f"tick {n}"}})
        time.sleep(0.002)


tiny.write = write
threading.Thread(target=chatter, daemon=True).start()
tiny.serve()
