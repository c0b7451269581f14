package dev.agenttools.auth;

/** A sign-in problem, with a message that says what to run to fix it. Never carries a token. */
public final class AuthException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public AuthException(String message) {
        super(message);
    }

    public AuthException(String message, Throwable cause) {
        super(message, cause);
    }
}
