/**
 * Google's OAuth 2.0 endpoints for installed apps (authorization with PKCE, token, revoke), enough for a headless
 * sign-in, and the state of the access tokens they issue, which the front checks on every API call. Internal to the
 * emulator, not API: {@code OAuthServer} is public only for the front and {@code Emulator}.
 */
package dev.agenttools.emulator.oauth;
