"""``mcp-handbook mcp``: the handbook served over MCP, on the official Python SDK's high-level server.

An agent that writes or reviews an MCP server reads the doctrine the way it reads any other server's: rules and the
worksheet as resources, the two review tasks as prompts, and tools that find rules and check a tool definition. The
server is built the way a product would build it (``MCPServer`` from the ``mcp`` package), not on the reference
server, which exists to be mounted with snippets; and it is held to its own doctrine: where an SDK default breaks a
rule, :mod:`.server` overrides it, and what it cannot override is written down in CONTRIBUTING.md.

- :mod:`.texts`: the markdown and JSON the resources and prompts hold, rendered from the one parsed model;
- :mod:`.search`: ``find_rules``'s filters and its pages;
- :mod:`.server`: the server itself and the SDK defaults it overrides;
- :mod:`.cli`: the ``mcp`` command.
"""
