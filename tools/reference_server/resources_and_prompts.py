"""Answering ``resources/*`` and ``prompts/*``: the workspace's resources and prompts mounted on a server, in both
eras, the 2026-07-28 listings and reads with their cache hints.

Apart from ``resources`` and ``prompts``: a prompt embeds resources (it reads them through ``Resources``), so
``prompts`` imports ``resources``; mounting both here keeps ``resources`` from importing ``prompts`` back."""
from __future__ import annotations

from reference_server.prompts import Prompts
from reference_server.resources import Resources
from reference_server.seam_call import call as call_seam

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def serve_resources_and_prompts(server: Any, *, page_size: int, conformance_fixtures: bool = False) -> None:
    """Answer resources/* and prompts/* on ``server`` in both eras; 2026-07-28 listings and reads carry cache hints.

    ``server`` is a ``server.Server``: its ``handlers`` (handshake era) and ``modern_handlers`` (2026-07-28)."""
    resources = Resources(server.workspace, page_size=page_size, nonce=server.session_id[:8])
    prompts = Prompts(resources, page_size=page_size)
    if conformance_fixtures:
        resources.add_conformance_fixtures()
        prompts.add_conformance_fixtures()
    handlers = {"resources/list": resources.list_resources, "resources/templates/list": resources.list_templates,
                "resources/read": resources.read_resource, "prompts/list": prompts.list_prompts,
                "prompts/get": prompts.get_prompt}
    server.handlers.update(handlers)
    # 2026-07-28 server/utilities/caching: these results are CacheableResult (ttlMs and cacheScope required)
    server.modern_handlers.update({name: _with_cache_hints(name, handler) for name, handler in handlers.items()
                                   if name != "prompts/get"})
    server.modern_handlers["prompts/get"] = prompts.get_prompt


def _with_cache_hints(method: str, handler: Callable[[dict[str, Any]], dict[str, Any]]
                      ) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def answer(message: dict[str, Any]) -> dict[str, Any]:
        return {**handler(message), **call_seam("cache_hints", method)}

    return answer
