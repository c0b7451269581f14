/**
 * Signing in to Google once (the installed-app flow with PKCE, a loopback receiver) and the stored, refreshing
 * credential, internal; only {@link dev.agenttools.auth.AuthSettings} is published. Imports nothing else of ours.
 */
package dev.agenttools.auth;
