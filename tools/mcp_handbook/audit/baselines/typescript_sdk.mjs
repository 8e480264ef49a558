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
const description = "Return the text it is given, unchanged. A baseline tool: it reads nothing and writes nothing.";
const echo = async ({ text }) => ({ content: [{ type: "text", text }] });

if (typeof server.registerTool === "function") {
  server.registerTool("echo", {
    description, inputSchema: { text: z.string() }, annotations: { readOnlyHint: true, openWorldHint: false },
  }, echo);
} else {  // SDK releases before registerTool
  server.tool("echo", description, { text: z.string() }, echo);
}

await server.connect(new StdioServerTransport());
