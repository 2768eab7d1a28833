#!/usr/bin/env node
// A TypeScript-SDK MCP client that makes the server send requests back to it.
// Usage: node everything-client.mjs CMD [ARGS...]
//   e.g. node everything-client.mjs node node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio
//
// It advertises roots (listChanged), sampling and elicitation, answers the
// server's roots/list, sampling/createMessage and elicitation/create requests
// with fixed values, and prints one JSON object per line on stdout, in a fixed
// order, with no timestamps: every message it sends (kind, id, method), every
// server->client request it answers (id, method), and a summary of each result.
//
// Order of client requests, chosen so that server->client request ids collide
// with client request ids (both sides count from 0) while the client's request
// of the same id is still pending:
//   c0 initialize
//   -- wait for the server's roots/list (s0) and its "Roots updated" log line
//   c1 tools/call trigger-sampling-request   -> server sends s1 sampling/createMessage while c1 is pending
//   c2 tools/call trigger-elicitation-request -> server sends s2 elicitation/create while c2 is pending
//   c3 tools/list
//   c4 tools/call echo
// Then it closes (stdin EOF to the child) and exits 0. Anything taking longer
// than 10 s in total makes it exit 124 with a message on stderr; any error
// exits 1.
//
// The child's stderr is piped and discarded (SIGHTLINE_PEER_STDERR=1 forwards
// it to this process's stderr). The child gets this process's whole environment.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const TIMEOUT_MS = 10_000;
const ROOT = { uri: "file:///tmp/sightline-test", name: "sightline-test" };
const SAMPLING_REPLY = {
  model: "sightline-fake-model",
  role: "assistant",
  content: { type: "text", text: "Sightline canned sampling reply." },
  stopReason: "endTurn",
};
const ELICITATION_REPLY = {
  action: "accept",
  content: { name: "Sightline Tester", check: true, integer: 42 },
};

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node everything-client.mjs CMD [ARGS...]");
  process.exit(64);
}
const timer = setTimeout(() => {
  console.error(`everything-client: timed out after ${TIMEOUT_MS / 1000} s`);
  // Do not leave the child behind: it gets SIGTERM, and its stdin closes as we exit.
  if (transport?.pid) try { process.kill(transport.pid, "SIGTERM"); } catch {}
  process.exit(124);
}, TIMEOUT_MS);
timer.unref();

const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

// A promise with its resolver, to wait for a server-side event.
function deferred() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}
const rootsListed = deferred();
const rootsLogged = deferred();

const transport = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: "pipe" });
if (process.env.SIGHTLINE_PEER_STDERR === "1") transport.stderr.pipe(process.stderr);
else transport.stderr.resume();

// Log every message the client writes: its kind, id and method.
const send = transport.send.bind(transport);
transport.send = (m, opts) => {
  const kind = "method" in m ? ("id" in m ? "request" : "notification") : "error" in m ? "error" : "response";
  const line = { event: "send", kind };
  if ("id" in m) line.id = m.id;
  if ("method" in m) line.method = m.method;
  out(line);
  return send(m, opts);
};

const client = new Client(
  { name: "sightline-everything-client", version: "1.0.0" },
  { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {}, url: {} } } }
);

client.setRequestHandler(ListRootsRequestSchema, async (_req, extra) => {
  out({ event: "server_request", id: extra.requestId, method: "roots/list" });
  rootsListed.resolve();
  return { roots: [ROOT] };
});
client.setRequestHandler(CreateMessageRequestSchema, async (req, extra) => {
  out({
    event: "server_request",
    id: extra.requestId,
    method: "sampling/createMessage",
    maxTokens: req.params.maxTokens,
    messages: req.params.messages,
  });
  return SAMPLING_REPLY;
});
client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
  out({ event: "server_request", id: extra.requestId, method: "elicitation/create", message: req.params.message });
  return ELICITATION_REPLY;
});

let toolListChanged = 0;
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  toolListChanged += 1;
});
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
  const data = n.params.data;
  out({ event: "log", level: n.params.level, logger: n.params.logger, data });
  if (typeof data === "string" && data.startsWith("Roots updated")) rootsLogged.resolve();
});

const summarizeCall = (name, r) => ({ event: "tools/call", name, isError: r.isError ?? false, content: r.content });

try {
  await client.connect(transport);
  const info = client.getServerVersion();
  out({
    event: "initialized",
    serverInfo: { name: info?.name, version: info?.version },
    capabilities: Object.keys(client.getServerCapabilities() ?? {}).sort(),
    instructions: typeof client.getInstructions() === "string",
  });

  await rootsListed.promise;
  await rootsLogged.promise;
  out({ event: "tools/list_changed", count: toolListChanged });

  const sampling = await client.callTool({
    name: "trigger-sampling-request",
    arguments: { prompt: "Say hello to Sightline", maxTokens: 32 },
  });
  out(summarizeCall("trigger-sampling-request", sampling));

  const elicitation = await client.callTool({ name: "trigger-elicitation-request", arguments: {} });
  out(summarizeCall("trigger-elicitation-request", elicitation));

  const { tools } = await client.listTools();
  out({ event: "tools/list", count: tools.length, names: tools.map((t) => t.name) });

  const echo = await client.callTool({ name: "echo", arguments: { message: "hello from sightline" } });
  out(summarizeCall("echo", echo));

  await client.close();
  out({ event: "closed" });
  process.exit(0);
} catch (err) {
  console.error("everything-client: error:", err?.stack ?? err);
  process.exit(1);
}
