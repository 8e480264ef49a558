// The smallest server the official TypeScript SDK (@modelcontextprotocol/sdk) builds: one read-only tool, every
// default kept. The auditor runs it with node beside the audited server's own copy of the SDK (a node_modules
// link to it), so a rule this server fails for the same reason as the audited one is the SDK's default, not the
// author's choice. Nothing here may change a default: no signal handler, no stdio reader, no logging set-up.
import { createRequire } from "node:module";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

// zod as the SDK itself resolves it (the SDK's own dependency, whichever major version it takes)
const { z } = createRequire(import.meta.resolve("@modelcontextprotocol/sdk/server/mcp.js"))("zod");

const server = new McpServer({ name: "hb-sdk-baseline", version: "0.0.0" });
const description = "Return the text it is given, `times` times, in capitals when `shout`. A baseline tool: it reads "
  + "nothing and writes nothing.";
// an integer and a boolean show what the SDK's validator does with a number or a flag sent as a string (ERR-004)
const shape = { text: z.string(), times: z.number().int().optional(), shout: z.boolean().optional() };
const echo = async ({ text, times = 1, shout = false }) => {
  const said = shout ? text.toUpperCase() : text;
  return { content: [{ type: "text", text: Array(Math.max(1, Math.min(times, 3))).fill(said).join(" ") }] };
};

if (typeof server.registerTool === "function") {
  server.registerTool("echo", {
    description, inputSchema: shape, annotations: { readOnlyHint: true, openWorldHint: false },
  }, echo);
} else {  // SDK releases before registerTool
  server.tool("echo", description, shape, echo);
}

await server.connect(new StdioServerTransport());
