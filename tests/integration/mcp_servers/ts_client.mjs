// The MCP TypeScript SDK's own client, over stdio, against a command given on the
// command line: lists the tools, calls each "name=JSON" given, prints what it got as
// JSON (a call that throws is reported as {"threw": ...}), with the progress a call
// reported, if any.
// Usage: SDK=<path to @modelcontextprotocol/sdk> node ts_client.mjs COMMAND ARG... -- CALL...
const sdk = process.env.SDK;
const { Client } = await import(`${sdk}/dist/esm/client/index.js`);
const { StdioClientTransport } = await import(`${sdk}/dist/esm/client/stdio.js`);

const argv = process.argv.slice(2);
const split = argv.indexOf("--");
const [command, ...args] = argv.slice(0, split);
const calls = argv.slice(split + 1).map((call) => {
  const at = call.indexOf("=");
  return [call.slice(0, at), JSON.parse(call.slice(at + 1))];
});

const client = new Client({ name: "ts-client", version: "0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
// Every progress notification, as it arrives. (Not `onprogress` alone: the SDK runs
// notification handlers a microtask after the message is read but answers a response
// at once, forgetting its `onprogress`: a report read together with the result is
// dropped there, whatever the server did.) `onprogress` still asks for progress.
const { ProgressNotificationSchema } = await import(`${sdk}/dist/esm/types.js`);
let progress = [];
client.setNotificationHandler(ProgressNotificationSchema, (n) => {
  const p = n.params;
  progress.push([p.progress, p.total ?? null, p.message ?? null]);
});
const out = { tools: {}, calls: [] };
for (const tool of (await client.listTools()).tools) {
  out.tools[tool.name] = { annotations: tool.annotations ?? null, title: tool.title ?? null };
}
for (const [name, args] of calls) {
  progress = [];  // the notifications/progress of this call, in order
  const onprogress = () => {};
  try {
    const result = await client.callTool({ name, arguments: args }, undefined, { onprogress });
    out.calls.push({
      isError: result.isError ?? false,
      content: result.content,
      structuredContent: result.structuredContent ?? null,
      ...(progress.length ? { progress } : {}),
    });
  } catch (error) {
    out.calls.push({ threw: String(error) });
  }
}
console.log(JSON.stringify(out));
await client.close();
