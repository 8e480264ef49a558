"""Audit many servers: read them from MCP Registry ``server.json`` entries, split them into shards, audit each
shard, merge every result into one scorecard.

The work is split so that any engine that can run N commands runs a fleet (a CI matrix, a batch system, a laptop):

- :mod:`.entry`: one server to audit, as the fleet plans it (:class:`~.entry.Entry`), and its file-name key.
- :mod:`.registry`: ``server.json`` files (one, a folder, a list, a registry API export) and plain commands
  turned into entries, each run the way a host runs it (``npx -y``, ``uvx``, a container image, a remote URL);
  what cannot run here says what it needs.
- :mod:`.prepare` and :mod:`.resolve`: install a package with the network on, then find the program its runner
  would start, which the audit runs.
- :mod:`.sandbox`: the wrapper that isolates each audit (bubblewrap when installed, network off unless needed).
- :mod:`.plan`: deterministic shards.
- :mod:`.run`: one shard audited by a bounded pool of worker processes (:mod:`.worker`, which runs
  :mod:`.audit_one` inside the sandbox), one JSON result per server (:mod:`.result` is its format).
- :mod:`.merge`, :mod:`.scorecard` and :mod:`.scorecard_page`: every result read once, streamed, into a scorecard
  (JSON, CSV and a page in the site's own style) and a diff against a previous one.

Nothing here schedules: a shard is a command, and so is the merge (``mcp-handbook fleet --help``).
"""
