#!/usr/bin/env node
// The seed article's "weather" MCP server, run as a stdio process.
// Usage: node weather-server.mjs
// stdout carries only JSON-RPC; one start-up line goes to stderr after connecting.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer(
  { name: "weather", version: "1.0.0" },
  { instructions: "Use get_weather for current conditions only." }
);
server.registerTool(
  "get_weather",
  { description: "Get current weather information for a location", inputSchema: { location: z.string() } },
  async ({ location }) => ({ content: [{ type: "text", text: `${location}: 15C, partly cloudy` }] })
);

const transport = new StdioServerTransport();
await server.connect(transport);
console.error("weather MCP server running on stdio");
