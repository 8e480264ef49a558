"""Tools with a ``password`` parameter, for AUTH-005: ``--set documents`` lists passwords that protect a file (an
Excel sheet's protection under ``$defs``, as excel-mcp-server lists it; an encrypted PDF's password), which are data;
``--set login`` lists one that logs in to a database; ``--set account`` one on a workbook tool that is still an
account's password; ``--set key`` an API key on a workbook tool. Otherwise it is the tiny server."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny

PROTECTION = {"type": "object", "properties": {
    "sheet": {"type": "boolean"},
    "password": {"type": "string", "maxLength": 255, "description": "To set; to unprotect, the current one."}}}
SETS = {
    "documents": [
        {"name": "set_sheet_layout", "description": "Set column widths, frozen panes and protection.\n\nProtection "
         "discourages edits in Excel but is not security (it does not stop this server; the password is weakly hashed).",
         "inputSchema": {"type": "object", "$defs": {"Protection": PROTECTION},
                         "properties": {"path": {"type": "string"}, "protection": {"$ref": "#/$defs/Protection"}}}},
        {"name": "read_pdf", "description": "Extract the text of a PDF.",
         "inputSchema": {"type": "object", "properties": {
             "path": {"type": "string"}, "password": {"type": "string", "description": "For an encrypted PDF."}}}},
    ],
    "login": [
        {"name": "run_query", "description": "Run a SQL query.",
         "inputSchema": {"type": "object", "properties": {
             "sql": {"type": "string"}, "password": {"type": "string", "description": "The database user's password."}}}},
    ],
    "account": [
        {"name": "open_workbook", "description": "Open a workbook stored online.",
         "inputSchema": {"type": "object", "properties": {
             "url": {"type": "string"},
             "password": {"type": "string", "description": "Password of the account that hosts the workbook."}}}},
    ],
    "key": [
        {"name": "export_sheet", "description": "Export a sheet to the cloud.",
         "inputSchema": {"type": "object", "properties": {"sheet": {"type": "string"}, "api_key": {"type": "string"}}}},
    ],
}

tiny.TOOLS = SETS[tiny.option("--set") or "documents"]
tiny.serve()
