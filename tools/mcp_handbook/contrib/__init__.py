"""What a contributor's change does to the doctrine: the ``diff`` command, the
version bump it calls for, and the changelog entry it drafts.

``versioning`` turns a :class:`~mcp_handbook.history.Changes` into impacts and a
suggested version (the meaning is written in ``content/versioning.md``);
``render`` writes them as text, pull-request Markdown or a changelog entry;
``commands`` is the only module here that prints.
"""
