#!/usr/bin/env node
// A host that lists a server's tools under the clientInfo it is given, reading only the first
// page of tools/list (as Claude Code did before 2.1.144) or, with --all-pages, every page.
// Usage: node paging-host.mjs NAME VERSION [--all-pages] -- CMD ARGS...
// Connects to CMD ARGS over stdio with the TypeScript SDK's client as clientInfo
// {name: NAME, version: VERSION}, sends tools/list (again with each nextCursor under
// --all-pages), prints one JSON line {"tools": [names], "nextCursor": cursor or null} and
// closes. Over 10 s exits 124; any error exits 1.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const dash = process.argv.indexOf("--");
const [name, version, ...flags] = process.argv.slice(2, dash);
const [command, ...args] = process.argv.slice(dash + 1);
if (dash < 0 || !name || !version || !command) {
  console.error("usage: node paging-host.mjs NAME VERSION [--all-pages] -- CMD ARGS...");
  process.exit(2);
}
const allPages = flags.includes("--all-pages");
setTimeout(() => {
  console.error("paging-host: timed out");
  process.exit(124);
}, 10_000).unref();

try {
  const client = new Client({ name, version });
  await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));
  const names = [];
  let cursor;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    names.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (allPages && cursor !== undefined);
  process.stdout.write(JSON.stringify({ tools: names, nextCursor: cursor ?? null }) + "\n");
  await client.close();
} catch (error) {
  console.error(`paging-host: ${error.message}`);
  process.exit(1);
}
