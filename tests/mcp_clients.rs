//! `/mcp` with the official MCP SDKs as clients.
