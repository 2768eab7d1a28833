#!/usr/bin/env node
// The seed article's demo client, over stdio instead of InMemoryTransport.
// Usage: node seed-client.mjs CMD [ARGS...]
// Spawns CMD ARGS as the MCP server (its stderr is piped and discarded; set
// SIGHTLINE_PEER_STDERR=1 to forward it to this process's stderr) and prints on
// stdout exactly the lines the article's demo prints. The child gets this
// process's whole environment (the SDK default would pass only HOME, PATH, ...).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node seed-client.mjs CMD [ARGS...]");
  process.exit(64);
}
const timer = setTimeout(() => {
  console.error("seed-client: timed out after 10 s");
  // Do not leave the child behind: it gets SIGTERM, and its stdin closes as we exit.
  if (clientT?.pid) try { process.kill(clientT.pid, "SIGTERM"); } catch {}
  process.exit(124);
}, 10_000);
timer.unref();

const clientT = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: "pipe" });
if (process.env.SIGHTLINE_PEER_STDERR === "1") clientT.stderr.pipe(process.stderr);
else clientT.stderr.resume();

// Host: print the method name of every message the client sends (as the article does).
const send = clientT.send.bind(clientT);
clientT.send = (m) => { console.log("C->S", m.method, m.params?.protocolVersion ?? ""); return send(m); };
const client = new Client({ name: "demo-host", version: "1.0.0" });
await client.connect(clientT);
console.log("instructions:", client.getInstructions());

// 1. Turn the tools/list result into the LLM APIs' tools parameter.
const { tools } = await client.listTools();
const anthropicTools = tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
const openaiTools = tools.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.inputSchema }));
console.log("anthropic:", JSON.stringify(anthropicTools[0]));
console.log("openai:", JSON.stringify(openaiTools[0]));

// 2. Pretend the model returned this tool_use block; its input becomes tools/call arguments.
const toolUse = { type: "tool_use", id: "toolu_demo", name: "get_weather", input: { location: "Seoul" } };
const result = await client.callTool({ name: toolUse.name, arguments: toolUse.input });
console.log("tool_result:", JSON.stringify({ type: "tool_result", tool_use_id: toolUse.id, content: result.content }));
await client.close();
