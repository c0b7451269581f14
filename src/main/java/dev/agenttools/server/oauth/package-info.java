/**
 * MCP authorization for {@code agent-tools server} (docs/mcp-authorization.md): the OAuth 2.1 authorization server that
 * stands in front of Google's consent (metadata, dynamic registration, authorize, Google's callback, token with rotating
 * refresh tokens), the check of its tokens on {@code /mcp}, the store of clients, codes, token digests and each user's
 * Google refresh token (AES-GCM; SQLite on one machine, DynamoDB across machines), and each user's Google access token refreshed before it expires. Internal: not part of
 * the published API.
 */
package dev.agenttools.server.oauth;
