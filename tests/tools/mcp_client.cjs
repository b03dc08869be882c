// refserve's /mcp through the official MCP TypeScript SDK
// (@modelcontextprotocol/client on npm).
//
//   node mcp_client.cjs URL VERSION
//
// URL is the endpoint (http://127.0.0.1:PORT/mcp), VERSION the protocol
// version to speak: 2026-07-28 (pinned: `server/discover` must offer it, then
// the stateless per-request envelope) or 2025-06-18 (the `initialize`
// handshake offering only that version). Lists the tools and calls each
// (`get_method` for every method `list_methods` names), lists the resources
// and reads each, then prints one JSON line: {"sdk", "version", "tools",
// "methods", "resources"}. Exits 1 with the reason on the first thing that
// is not as expected. The installed modules are found through NODE_PATH.
'use strict';
const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client');
const fs = require('fs');
const path = require('path');

// Its package.json is not exported: read it beside the resolved entry point.
const sdk = JSON.parse(
  fs.readFileSync(path.join(path.dirname(require.resolve('@modelcontextprotocol/client')), '..', 'package.json'), 'utf8'),
);

const TOOLS = ['list_methods', 'get_method', 'search'];
const QUERY = 'roll back my changes if something goes wrong';
const TOP_HIT = 'action';

class Failure extends Error {}

function check(condition, message) {
  if (!condition) throw new Failure(message);
}

const show = (value) => JSON.stringify(value).slice(0, 400);

/// The text blocks of a tool result.
const texts = (result) =>
  (result.content || []).filter((block) => block.type === 'text').map((block) => block.text);

/// A client that speaks exactly `version`.
function client(version) {
  const info = { name: 'refserve-tests', version: '1.0.0' };
  if (version === '2026-07-28') {
    // Modern era at exactly this revision: no fallback to the handshake.
    return new Client(info, { versionNegotiation: { mode: { pin: version } } });
  }
  // The handshake offers the first of these, and accepts only them back.
  return new Client(info, { supportedProtocolVersions: [version] });
}

/// Call a tool, which must succeed and answer structured content.
async function call(mcp, name, args) {
  const result = await mcp.callTool({ name, arguments: args });
  const what = `${name} ${JSON.stringify(args)}`;
  check(!result.isError, `${what}: isError: ${show(texts(result))}`);
  check(result.structuredContent && typeof result.structuredContent === 'object', `${what}: no structuredContent`);
  check(texts(result).length > 0, `${what}: no text content block`);
  return result;
}

async function exercise(url, version) {
  const mcp = client(version);
  await mcp.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    const negotiated = mcp.getNegotiatedProtocolVersion();
    check(negotiated === version, `negotiated ${negotiated}, not ${version}`);
    const era = mcp.getProtocolEra();
    check(era === (version === '2026-07-28' ? 'modern' : 'legacy'), `era ${era} at ${version}`);
    if (version === '2026-07-28') {
      const discovered = mcp.getDiscoverResult();
      check(discovered && discovered.supportedVersions.includes(version), `discover: ${show(discovered)}`);
    }
    const server = mcp.getServerVersion();
    check(server && server.name === 'refserve', `serverInfo: ${show(server)}`);

    const listed = await mcp.listTools();
    const names = listed.tools.map((tool) => tool.name);
    check(JSON.stringify(names) === JSON.stringify(TOOLS), `tools/list names ${show(names)}, not ${show(TOOLS)}`);
    for (const tool of listed.tools) {
      check(tool.annotations && tool.annotations.readOnlyHint === true, `${tool.name}: annotations ${show(tool.annotations)}`);
    }

    const every = await call(mcp, 'list_methods', {});
    const methods = every.structuredContent.methods;
    check(Array.isArray(methods) && methods.length > 0, `list_methods: ${show(every.structuredContent)}`);
    const keys = methods.map((method) => method.name);
    check(new Set(keys).size === keys.length, `list_methods repeats a name: ${show(keys)}`);

    for (const key of keys) {
      const one = await call(mcp, 'get_method', { name: key });
      check(one.structuredContent.key === key, `get_method ${key}: structuredContent.key ${show(one.structuredContent.key)}`);
      check(texts(one).some((text) => text.startsWith('#')), `get_method ${key}: no Markdown text block: ${show(texts(one))}`);
    }

    const found = await call(mcp, 'search', { query: QUERY, limit: 5 });
    const results = found.structuredContent.results || [];
    const top = results.length > 0 ? results[0].name : undefined;
    check(top === TOP_HIT, `search ${show(QUERY)}: top result ${show(top)}, not ${TOP_HIT}: ${show(results)}`);

    // Asked in a locale: the same methods, answered in Chinese.
    for (const [name, args] of [
      ['list_methods', { locale: 'zh-CN' }],
      ['search', { query: QUERY, limit: 5, locale: 'zh-CN' }],
    ]) {
      const localized = await call(mcp, name, args);
      check(texts(localized).some((text) => /[\u4e00-\u9fff]/.test(text)), `${name} ${show(args)}: not in Chinese: ${show(texts(localized))}`);
    }

    const resources = [];
    let cursor;
    do {
      const page = await mcp.listResources(cursor === undefined ? {} : { cursor });
      resources.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const uris = resources.map((resource) => resource.uri);
    check(uris.length > 0 && new Set(uris).size === uris.length, `resources/list: ${show(uris)}`);
    for (const resource of resources) {
      const read = await mcp.readResource({ uri: resource.uri });
      check(read.contents.length === 1, `${resource.uri}: ${read.contents.length} contents`);
      const content = read.contents[0];
      check(content.uri === resource.uri, `${resource.uri}: content uri ${content.uri}`);
      check(content.mimeType === resource.mimeType, `${resource.uri}: mimeType ${content.mimeType}, listed as ${resource.mimeType}`);
      check(typeof content.text === 'string' && content.text.length > 0, `${resource.uri}: no text`);
    }

    return {
      sdk: `${sdk.name} ${sdk.version}`,
      version: negotiated,
      tools: names.length,
      methods: keys.length,
      resources: resources.length,
    };
  } finally {
    await mcp.close();
  }
}

async function main() {
  const [url, version] = process.argv.slice(2);
  if (!url || !['2026-07-28', '2025-06-18'].includes(version)) {
    console.error('usage: node mcp_client.cjs URL 2026-07-28|2025-06-18');
    process.exit(2);
  }
  try {
    console.log(JSON.stringify(await exercise(url, version)));
  } catch (error) {
    if (error instanceof Failure) {
      console.error(`mcp_client.cjs ${version}: ${error.message}`);
    } else {
      // The SDK's own errors (a JSON-RPC error, a result that fails its
      // schema, a transport error) with their stack.
      console.error(`mcp_client.cjs ${version}: the SDK failed:`, error);
    }
    process.exit(1);
  }
}

main();
