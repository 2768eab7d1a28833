#!/usr/bin/env node
// A TypeScript-SDK MCP client that exercises as much of a server as it can, so that a trace of
// the exchange holds one of (nearly) every message type of MCP 2025-11-25.
// Usage: node everything-tour.mjs CMD [ARGS...]
//   e.g. node everything-tour.mjs node node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio
//
// Against @modelcontextprotocol/server-everything it sends: initialize, ping, logging/setLevel,
// tools/list, tools/call for every tool that needs no network and reveals nothing about the
// machine (not get-env; gzip-file-as-resource gets a data: URI), a tools/call with a progress
// token, a tools/call it cancels (notifications/cancelled), a call of a tool that does not exist,
// the URL-elicitation error path (-32042), resources/list, resources/templates/list,
// resources/read (text, blob, a static document), resources/subscribe and unsubscribe,
// prompts/list, prompts/get for every prompt, completion/complete, a task-augmented tools/call
// (tasks/get until completed, tasks/result, tasks/list), the server's task-augmented sampling and
// elicitation requests (trigger-*-async: the client answers with a task, the server polls it with
// tasks/get and tasks/result), and notifications/roots/list_changed. It answers the server's
// roots/list, sampling/createMessage and elicitation/create requests with fixed values. It prints one JSON object per line on stdout (step names and outcomes, no
// timestamps). It exits 0 when done, 124 after 30 s (SIGTERM to the child first), 1 on error.
//
// The child's stderr is piped and discarded (SIGHTLINE_PEER_STDERR=1 forwards it). The child
// gets this process's whole environment.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import {
  CreateMessageRequestSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  GetTaskPayloadResultSchema,
  GetTaskResultSchema,
  ListRootsRequestSchema,
  ListTasksResultSchema,
} from "@modelcontextprotocol/sdk/types.js";

const TIMEOUT_MS = 30_000;
const ROOT = { uri: "file:///tmp/sightline-test", name: "sightline-test" };
const SAMPLING_REPLY = {
  model: "sightline-fake-model",
  role: "assistant",
  content: { type: "text", text: "Sightline canned sampling reply." },
  stopReason: "endTurn",
};

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node everything-tour.mjs CMD [ARGS...]");
  process.exit(64);
}
const timer = setTimeout(() => {
  console.error(`everything-tour: timed out after ${TIMEOUT_MS / 1000} s`);
  if (transport?.pid) try { process.kill(transport.pid, "SIGTERM"); } catch {}
  process.exit(124);
}, TIMEOUT_MS);
timer.unref();

const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let rootsResolve;
const rootsListed = new Promise((r) => (rootsResolve = r));

const transport = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: "pipe" });
if (process.env.SIGHTLINE_PEER_STDERR === "1") transport.stderr.pipe(process.stderr);
else transport.stderr.resume();

const client = new Client(
  { name: "sightline-everything-tour", version: "1.0.0" },
  {
    capabilities: {
      roots: { listChanged: true },
      sampling: {},
      elicitation: { form: {}, url: {} },
      tasks: { requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
    },
    taskStore: new InMemoryTaskStore(),
  }
);

client.setRequestHandler(ListRootsRequestSchema, async () => {
  rootsResolve();
  return { roots: [ROOT] };
});
// A request that asks for a task (`params.task`) gets a completed client-side task; the server
// then polls it with tasks/get and fetches the result with tasks/result.
async function answer(req, extra, result) {
  if (!req.params.task || !extra.taskStore) return result;
  const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl });
  await extra.taskStore.storeTaskResult(task.taskId, "completed", result);
  return { task };
}
client.setRequestHandler(CreateMessageRequestSchema, (req, extra) => answer(req, extra, SAMPLING_REPLY));
client.setRequestHandler(ElicitRequestSchema, (req, extra) =>
  answer(
    req,
    extra,
    req.params.mode === "url"
      ? { action: "accept" }
      : { action: "accept", content: { name: "Sightline Tester", check: true, integer: 42 } }
  )
);

/** Runs one step; a step that fails is reported and the tour goes on. */
async function step(name, f) {
  try {
    const r = await f();
    out({ step: name, ok: true, ...(r ?? {}) });
  } catch (err) {
    out({ step: name, ok: false, error: String(err?.message ?? err).slice(0, 120) });
  }
}

const call = (name, args = {}, opts) =>
  client.callTool({ name, arguments: args }, undefined, opts).then((r) => ({
    isError: r.isError ?? false,
    kinds: (r.content ?? []).map((c) => c.type),
  }));

try {
  await client.connect(transport);
  out({ step: "initialize", ok: true, server: client.getServerVersion()?.name });
  await Promise.race([rootsListed, sleep(3000)]);

  await step("ping", () => client.ping().then(() => ({})));
  await step("logging/setLevel", () => client.setLoggingLevel("debug").then(() => ({})));

  await step("tools/list", async () => {
    const { tools } = await client.listTools();
    return { count: tools.length };
  });
  await step("echo", () => call("echo", { message: "hello from sightline" }));
  await step("get-sum", () => call("get-sum", { a: 2, b: 3 }));
  await step("get-tiny-image", () => call("get-tiny-image"));
  await step("get-annotated-message", () =>
    call("get-annotated-message", { messageType: "error", includeImage: true })
  );
  await step("get-resource-links", () => call("get-resource-links", { count: 3 }));
  await step("get-resource-reference text", () =>
    call("get-resource-reference", { resourceType: "Text", resourceId: 1 })
  );
  await step("get-resource-reference blob", () =>
    call("get-resource-reference", { resourceType: "Blob", resourceId: 2 })
  );
  await step("get-structured-content", () => call("get-structured-content", { location: "Chicago" }));
  await step("get-roots-list", () => call("get-roots-list"));
  await step("gzip-file-as-resource", () =>
    call("gzip-file-as-resource", {
      name: "hello.txt.gz",
      data: "data:text/plain;base64,aGVsbG8gc2lnaHRsaW5l",
      outputType: "resource",
    })
  );
  await step("trigger-long-running-operation with progress", async () => {
    let progress = 0;
    const r = await call(
      "trigger-long-running-operation",
      { duration: 0.4, steps: 2 },
      { onprogress: () => (progress += 1) }
    );
    return { ...r, progress };
  });
  await step("trigger-long-running-operation cancelled", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort("sightline cancels"), 300);
    try {
      await call("trigger-long-running-operation", { duration: 3, steps: 3 }, { signal: controller.signal });
      return { cancelled: false };
    } catch {
      return { cancelled: true };
    }
  });
  await step("trigger-sampling-request", () =>
    call("trigger-sampling-request", { prompt: "Say hello to Sightline", maxTokens: 32 })
  );
  await step("trigger-elicitation-request", () => call("trigger-elicitation-request"));
  await step("trigger-sampling-request-async", () =>
    call("trigger-sampling-request-async", { prompt: "Say hello to Sightline", maxTokens: 32 })
  );
  await step("trigger-elicitation-request-async", () => call("trigger-elicitation-request-async"));
  await step("trigger-url-elicitation", () =>
    call("trigger-url-elicitation", { url: "https://example.com/sightline", elicitationId: "e-1" })
  );
  await step("trigger-url-elicitation error path", () =>
    call("trigger-url-elicitation", {
      url: "https://example.com/sightline-error",
      elicitationId: "e-2",
      errorPath: true,
    })
  );
  await step("toggle-simulated-logging on", () => call("toggle-simulated-logging"));
  await step("toggle-simulated-logging off", () => call("toggle-simulated-logging"));
  await step("no-such-tool", () => call("no-such-tool"));

  let staticDoc;
  await step("resources/list", async () => {
    const { resources } = await client.listResources();
    staticDoc = resources.find((r) => r.uri.includes("/static/"))?.uri;
    return { count: resources.length };
  });
  await step("resources/templates/list", async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    return { count: resourceTemplates.length };
  });
  for (const uri of ["demo://resource/dynamic/text/1", "demo://resource/dynamic/blob/2", staticDoc]) {
    if (uri) await step(`resources/read ${uri}`, () => client.readResource({ uri }).then((r) => ({ n: r.contents.length })));
  }
  await step("resources/subscribe", () =>
    client.subscribeResource({ uri: "demo://resource/dynamic/text/1" }).then(() => ({}))
  );
  await step("toggle-subscriber-updates on", () => call("toggle-subscriber-updates"));
  await step("toggle-subscriber-updates off", () => call("toggle-subscriber-updates"));
  await step("resources/unsubscribe", () =>
    client.unsubscribeResource({ uri: "demo://resource/dynamic/text/1" }).then(() => ({}))
  );

  await step("prompts/list", async () => {
    const { prompts } = await client.listPrompts();
    return { count: prompts.length };
  });
  const prompts = [
    ["simple-prompt", {}],
    ["args-prompt", { city: "Seoul", state: "Seoul" }],
    ["completable-prompt", { department: "Engineering", name: "Alice" }],
    ["resource-prompt", { resourceType: "Text", resourceId: "1" }],
  ];
  for (const [name, a] of prompts) {
    await step(`prompts/get ${name}`, () =>
      client.getPrompt({ name, arguments: a }).then((r) => ({ n: r.messages.length }))
    );
  }
  await step("completion/complete", () =>
    client
      .complete({
        ref: { type: "ref/prompt", name: "completable-prompt" },
        argument: { name: "department", value: "E" },
      })
      .then((r) => ({ values: r.completion.values }))
  );

  await step("task-augmented tools/call", async () => {
    const created = await client.request(
      {
        method: "tools/call",
        params: { name: "simulate-research-query", arguments: { topic: "MCP tracing" }, task: { ttl: 60000 } },
      },
      CreateTaskResultSchema
    );
    const taskId = created.task.taskId;
    let status = created.task.status;
    for (let i = 0; i < 40 && status !== "completed" && status !== "failed"; i++) {
      await sleep(500);
      const t = await client.request({ method: "tasks/get", params: { taskId } }, GetTaskResultSchema);
      status = t.status;
    }
    await client.request({ method: "tasks/result", params: { taskId } }, GetTaskPayloadResultSchema);
    const list = await client.request({ method: "tasks/list", params: {} }, ListTasksResultSchema);
    return { status, listed: list.tasks.length > 0 };
  });

  await step("notifications/roots/list_changed", async () => {
    await client.sendRootsListChanged();
    await sleep(300);
    return {};
  });

  await client.close();
  out({ step: "closed", ok: true });
  process.exit(0);
} catch (err) {
  console.error("everything-tour: error:", err?.stack ?? err);
  process.exit(1);
}
