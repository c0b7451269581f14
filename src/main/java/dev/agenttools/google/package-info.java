/**
 * What the Gmail and Calendar tools share, internal (not part of the API; only {@link dev.agenttools.google.GoogleSettings}
 * is published): the one connection to Google the registry owns ({@link dev.agenttools.google.GoogleConnection}:
 * transport, token or stored sign-in, who each credential is), the one call path
 * ({@link dev.agenttools.google.GoogleCalls}: per-account pacing, retries, Google's errors translated in one place),
 * the fetch strategies ({@link dev.agenttools.google.Strategy}) and the bounded readers of Google's answers. Imports
 * only {@code tool}.
 */
package dev.agenttools.google;
