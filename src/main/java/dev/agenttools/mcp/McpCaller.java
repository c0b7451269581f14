package dev.agenttools.mcp;

/**
 * Who a request to the MCP HTTP endpoint runs as, as the server's gate found it before the request reached the
 * endpoint: the Google token the tools run with, whether the caller may call a tool at all, and what to do when Google
 * refuses the token in a call. A refusal ({@link Refusal}) becomes the HTTP answer of the request instead of its
 * JSON-RPC answer (the stateless transport writes nothing before the tool has returned, so the answer is never
 * committed by then). Public only for the service's package (internal). Called on the request's own thread.
 */
public interface McpCaller {
    /** No caller of its own: the Google token given, Google's refusals left as tool errors. */
    static McpCaller of(String googleToken) {
        return () -> googleToken;
    }

    /** The Google access token the tools run with (null: the arguments' own, else none). */
    String googleToken();

    /**
     * Checks that the caller may call {@code command} (a registry command such as {@code gmail.list-emails}).
     *
     * @throws Refusal the HTTP answer instead (403 {@code insufficient_scope})
     */
    default void mayCall(String command) throws Refusal {
    }

    /**
     * Google refused {@code refused} in a call ({@code unauthenticated}): what the call does next.
     *
     * @return a fresh Google token to run the call once more with, or null when the tool error stands
     * @throws Refusal the HTTP answer instead (401 {@code invalid_token}: the user must sign in again)
     */
    default String afterGoogleRefused(String refused) throws Refusal {
        return null;
    }

    /**
     * An HTTP answer that replaces the JSON-RPC one: {@code status} with {@code wwwAuthenticate} (null: none) and a
     * JSON body. Carries no token.
     */
    final class Refusal extends Exception {
        private static final long serialVersionUID = 1L;
        private final int status;
        private final String wwwAuthenticate;
        private final String json;

        public Refusal(int status, String wwwAuthenticate, String json) {
            super("HTTP " + status, null, false, false);
            this.status = status;
            this.wwwAuthenticate = wwwAuthenticate;
            this.json = json;
        }

        public int status() {
            return status;
        }

        public String wwwAuthenticate() {
            return wwwAuthenticate;
        }

        public String json() {
            return json;
        }
    }
}
