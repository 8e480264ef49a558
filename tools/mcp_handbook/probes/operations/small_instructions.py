"""The ``instructions`` of the initialize result, if any, are a short string.

Clients and gateways may shorten or drop ``instructions``, and every session pays for them in the model's
context; a long text is a sign that rules which belong on the tools (descriptions, schemas, error
messages) live only there. The probe reads them from the handshake and holds them to the handbook's budget.
"""

from __future__ import annotations

from ..registry import probe
from ..support import Finding, Target, compact, failed, handshake, passed

INSTRUCTIONS_BUDGET = 2000
"""The handbook's ceiling for ``instructions``, in characters (an opinion, see the rule)."""


@probe("small_instructions", "instructions stay within the handbook's size budget",
       over_http=True, reasons={
           "instructions_not_string": "instructions is present but not a string",
           "instructions_over_budget": f"instructions are longer than the handbook's {INSTRUCTIONS_BUDGET:,}-character budget",
       }, shares_session=True)
def small_instructions(target: Target) -> Finding:
    """The initialize result's instructions, if any, are a string within the handbook's budget."""
    _session, init = handshake(target)
    text = init.get("instructions")
    if text is None:
        return passed("the server sends no instructions (nothing to budget)")
    if not isinstance(text, str):
        return failed("instructions_not_string", f"instructions is {type(text).__name__}, not a string", f"<<< {compact(text)}")
    shown = f"instructions ({len(text)} characters): {compact(text, 240)}"
    if len(text) > INSTRUCTIONS_BUDGET:
        return failed("instructions_over_budget",
                      f"instructions are {len(text):,} characters, over the {INSTRUCTIONS_BUDGET:,}-character budget: "
                      "clients and gateways may truncate or drop them, and every session pays for them", shown)
    return passed(f"instructions are {len(text)} characters (budget {INSTRUCTIONS_BUDGET})", shown)
