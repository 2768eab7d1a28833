#!/usr/bin/env node
// An external host, not Sightline's: a minimal agent built on the TypeScript SDK's stdio client
// and the Anthropic Messages API over fetch, written the way the seed article describes.
// Usage: node external-host.mjs BASE_URL PROMPT -- SERVER_CMD ARGS...
//
// It starts the server (whatever command it is given: in the tests, `sightline proxy --session`
// in front of a demo server), lists its tools, renames `inputSchema` to `input_schema` for the
// `tools` parameter, posts the prompt to BASE_URL/v1/messages with an x-api-key header, sends a
// `tools/call` for each `tool_use`, returns each result as a `tool_result`, and loops until
// `stop_reason` is no longer `tool_use`. It prints one JSON object per line. Over 20 s exits
// 124; any error exits 1.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const dash = process.argv.indexOf("--");
const [base, prompt] = process.argv.slice(2, dash);
const [command, ...args] = process.argv.slice(dash + 1);
if (dash < 0 || !base || !prompt || !command) {
  console.error("usage: node external-host.mjs BASE_URL PROMPT -- SERVER_CMD ARGS...");
  process.exit(2);
}
setTimeout(() => {
  console.error("external-host: timed out");
  process.exit(124);
}, 20_000).unref();

const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

try {
  const client = new Client({ name: "external-host", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));
  const { tools } = await client.listTools();
  const apiTools = tools.map((t) => ({
    name: t.name,
    description: t.description ?? "",
    input_schema: t.inputSchema,
  }));
  out({ step: "tools", names: apiTools.map((t) => t.name) });

  const messages = [{ role: "user", content: prompt }];
  for (let turn = 0; turn < 8; turn++) {
    const response = await fetch(`${base}/v1/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": "sk-ant-EXTERNAL-HOST-SECRET",
        "anthropic-version": "2023-06-01",
      },
      body: JSON.stringify({ model: "scripted", max_tokens: 512, tools: apiTools, messages }),
    });
    if (!response.ok) throw new Error(`LLM API said ${response.status}: ${await response.text()}`);
    const body = await response.json();
    messages.push({ role: "assistant", content: body.content });
    out({ step: "model", stop_reason: body.stop_reason });
    if (body.stop_reason !== "tool_use") {
      out({ step: "answer", text: body.content.filter((c) => c.type === "text").map((c) => c.text).join("") });
      break;
    }
    const results = [];
    for (const use of body.content.filter((c) => c.type === "tool_use")) {
      const result = await client.callTool({ name: use.name, arguments: use.input });
      out({ step: "call", tool: use.name, isError: result.isError ?? false });
      results.push({
        type: "tool_result",
        tool_use_id: use.id,
        content: result.content.filter((c) => c.type === "text").map((c) => ({ type: "text", text: c.text })),
        is_error: result.isError ?? false,
      });
    }
    messages.push({ role: "user", content: results });
  }
  await client.close();
  process.exit(0);
} catch (e) {
  console.error("external-host:", e?.stack ?? e);
  process.exit(1);
}
