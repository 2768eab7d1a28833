#!/usr/bin/env node
// A TypeScript-SDK MCP client over Streamable HTTP that declares `roots`, for the replay of the
// standalone GET stream. Usage: node http-roots-client.mjs URL
//
// It connects (initialize; the SDK then opens the standalone GET stream), answers the
// `roots/list` that server-everything sends on that stream after `notifications/initialized`
// with one root, waits 300 ms for the answer to land, calls `get-roots-list` (which shows the
// roots the server was given), ends the session with DELETE and closes. It prints one JSON
// object per line on stdout, with no session ids. Over 15 s exits 124; any error exits 1.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const url = process.argv[2];
if (!url) {
  console.error("usage: node http-roots-client.mjs URL");
  process.exit(2);
}
setTimeout(() => {
  console.error("http-roots-client: timed out");
  process.exit(124);
}, 15_000).unref();

const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

try {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client(
    { name: "sightline-roots-client", version: "1.0.0" },
    { capabilities: { roots: { listChanged: true } } },
  );
  let asked;
  const rootsAsked = new Promise((resolve) => (asked = resolve));
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    asked();
    return { roots: [{ uri: "file:///tmp/sightline-replay", name: "replayed root" }] };
  });
  await client.connect(transport);
  out({ step: "connected", server: client.getServerVersion()?.name });
  await rootsAsked;
  out({ step: "roots/list answered" });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const roots = await client.callTool({ name: "get-roots-list", arguments: {} });
  out({ step: "get-roots-list", content: roots.content });
  await transport.terminateSession();
  await client.close();
  out({ step: "closed" });
  process.exit(0);
} catch (err) {
  console.error(`http-roots-client: ${err?.stack ?? err}`);
  process.exit(1);
}
