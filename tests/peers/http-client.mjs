#!/usr/bin/env node
// A TypeScript-SDK MCP client over Streamable HTTP.
// Usage: node http-client.mjs URL   (e.g. http://127.0.0.1:3001/mcp)
//
// It connects (initialize, then the SDK opens the standalone GET stream), lists the tools,
// calls `echo`, calls `trigger-long-running-operation` (3 steps in 0.3 s) with a progress
// callback, then ends the session with DELETE (`terminateSession`) and closes. It prints one
// JSON object per line on stdout, with no session ids or timestamps, so the output is the same
// directly and through a proxy. Over 15 s exits 124; any error exits 1.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";

const url = process.argv[2];
if (!url) {
  console.error("usage: node http-client.mjs URL");
  process.exit(2);
}
setTimeout(() => {
  console.error("http-client: timed out");
  process.exit(124);
}, 15_000).unref();

const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

try {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: "sightline-http-client", version: "1.0.0" });
  await client.connect(transport);
  out({ step: "connected", server: client.getServerVersion()?.name, session: transport.sessionId ? "yes" : "no" });
  const tools = await client.listTools();
  out({ step: "tools/list", tools: tools.tools.map((t) => t.name).sort() });
  const echo = await client.callTool({ name: "echo", arguments: { message: "hello over http" } });
  out({ step: "echo", content: echo.content });
  const long = await client.callTool(
    { name: "trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } },
    CallToolResultSchema,
    { onprogress: (p) => out({ step: "progress", progress: p.progress, total: p.total }) },
  );
  out({ step: "long-running", content: long.content });
  await transport.terminateSession();
  out({ step: "terminated", session: transport.sessionId ? "still" : "ended" });
  await client.close();
  out({ step: "closed" });
  process.exit(0);
} catch (err) {
  console.error(`http-client: ${err?.stack ?? err}`);
  process.exit(1);
}
