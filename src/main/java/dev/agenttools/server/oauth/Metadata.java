package dev.agenttools.server.oauth;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Json;

/** The two discovery documents, built once from the public URL (never from a request's Host header). */
final class Metadata {
    static final String PROTECTED_RESOURCE = "/.well-known/oauth-protected-resource";
    static final String AUTHORIZATION_SERVER = "/.well-known/oauth-authorization-server";
    static final String REGISTER = "/oauth/register";
    static final String AUTHORIZE = "/oauth/authorize";
    static final String CALLBACK = "/oauth/callback";
    /** Where the consent page's form posts the user's answer (not in the metadata: only our own page uses it). */
    static final String CONSENT = "/oauth/consent";
    static final String TOKEN = "/oauth/token";
    static final String REVOKE = "/oauth/revoke";

    private Metadata() {
    }

    /** RFC 9728: what {@code /mcp} is and who issues its tokens. */
    static ObjectNode protectedResource(OAuthSettings s) {
        ObjectNode doc = Json.object().put("resource", s.resource());
        doc.putArray("authorization_servers").add(s.issuer());
        OAuthSettings.SCOPES.forEach(doc.putArray("scopes_supported")::add);
        doc.putArray("bearer_methods_supported").add("header");
        doc.put("resource_name", "agent-tools");
        return doc;
    }

    /** RFC 8414: the authorization server's endpoints and what it supports. */
    static ObjectNode authorizationServer(OAuthSettings s) {
        String base = s.issuer();
        ObjectNode doc = Json.object().put("issuer", base)
                .put("authorization_endpoint", base + AUTHORIZE)
                .put("token_endpoint", base + TOKEN)
                .put("registration_endpoint", base + REGISTER)
                .put("revocation_endpoint", base + REVOKE);
        OAuthSettings.SCOPES.forEach(doc.putArray("scopes_supported")::add);
        doc.putArray("response_types_supported").add("code");
        doc.putArray("response_modes_supported").add("query");
        doc.putArray("grant_types_supported").add("authorization_code").add("refresh_token");
        doc.putArray("token_endpoint_auth_methods_supported").add("none");
        doc.putArray("revocation_endpoint_auth_methods_supported").add("none");
        doc.putArray("code_challenge_methods_supported").add("S256");
        doc.put("authorization_response_iss_parameter_supported", true);
        return doc;
    }

    /** The {@code WWW-Authenticate} value of a 401 on {@code /mcp} (RFC 9728 section 5.1, RFC 6750 section 3). */
    static String challenge(OAuthSettings s, String error, String description) {
        return "Bearer resource_metadata=\"" + s.protectedResourceMetadataUrl() + "\", scope=\""
                + String.join(" ", OAuthSettings.SCOPES) + "\""
                + (error == null ? "" : ", error=\"" + error + "\", error_description=\"" + description + "\"");
    }

    /**
     * The {@code WWW-Authenticate} value of a 403 for a token whose scope lacks what a tool needs (RFC 6750 section
     * 3.1, MCP authorization's scope challenge): {@code scope} is what to ask for at the next authorization.
     */
    static String scopeChallenge(OAuthSettings s, String scope, String description) {
        return "Bearer error=\"insufficient_scope\", scope=\"" + scope + "\", resource_metadata=\"" + s.issuer()
                + PROTECTED_RESOURCE + "\", error_description=\"" + description + "\"";
    }
}
