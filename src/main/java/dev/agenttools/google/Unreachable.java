package dev.agenttools.google;

import java.io.Serial;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Locale;

/**
 * No connection to Google's server could be made: refused, an unknown host, no route, or none made in time. Says so
 * in words with the server's address, since the JDK's exception has neither (a refused connection reaches us as a
 * {@link ConnectException} without a message, caused by a {@link ClosedChannelException}). A retry rarely helps, so
 * {@link Retry} makes at most one more attempt; what the caller sees is {@code upstream}. Immutable.
 */
final class Unreachable extends ConnectException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final boolean timedOut;

    private Unreachable(String message, boolean timedOut, Throwable cause) {
        super(message);
        initCause(cause);
        this.timedOut = timedOut;
    }

    /**
     * @param server  {@code host:port} of the server called
     * @param failure what the JDK's client threw (a {@link ConnectException} or {@link HttpConnectTimeoutException})
     * @param elapsedMs how long the attempt took, for a connection not made in time
     */
    static Unreachable of(String server, Exception failure, long elapsedMs) {
        boolean timedOut = timedOut(failure);
        return new Unreachable("cannot connect to " + server + ": " + (timedOut
                ? "no connection after " + elapsedMs + " ms" : why(failure)), timedOut, failure);
    }

    /**
     * True when no connection was made in time: the client's connect timeout, or the request's own (the call's
     * deadline) running out while connecting.
     */
    boolean timedOut() {
        return timedOut;
    }

    private static boolean timedOut(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof HttpConnectTimeoutException || "HTTP connect timed out".equals(t.getMessage())) {
                return true;
            }
        }
        return false;
    }

    private static String why(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            switch (t) {
                case UnresolvedAddressException _, UnknownHostException _ -> {
                    return "unknown host";
                }
                case NoRouteToHostException _ -> {
                    return "no route to host";
                }
                // the JDK's client retries a refused connect once on the channel the refusal closed: what it reports
                // is that second attempt's ClosedChannelException
                case ClosedChannelException _ -> {
                    return "connection refused";
                }
                default -> {
                    if (t.getMessage() != null && !t.getMessage().isBlank()) {
                        return t.getMessage().strip().toLowerCase(Locale.ROOT);
                    }
                }
            }
        }
        return "the connection failed";
    }
}
