package dev.agenttools.google;

import dev.agenttools.tool.ToolException;

import java.util.HashSet;
import java.util.Set;

/**
 * The guard of one loop that follows an API's {@code nextPageToken} within one call: a token already followed in
 * this loop is the server's error at once (following it again would ask the same page forever), and past
 * {@code maxPages} pages the loop stops, so that a server handing out a new token every time cannot keep a call
 * asking until its deadline. One per loop run; not thread-safe (a loop runs on one thread).
 */
public final class PageTokens {
    private final String method;
    private final int maxPages;
    private final Set<String> followed = new HashSet<>();
    private int pages;

    /**
     * @param method   the API method paged, for errors ({@code calendar calendarList.list})
     * @param maxPages the most pages one loop reads
     */
    public PageTokens(String method, int maxPages) {
        if (maxPages < 1) {
            throw new IllegalArgumentException("maxPages must be positive, got " + maxPages);
        }
        this.method = method;
        this.maxPages = maxPages;
    }

    /**
     * Counts one page read and says what to ask next.
     *
     * @param next the page's {@code nextPageToken} (null or empty on the last page)
     * @return the token to ask the next page with, or null when this page was the last
     * @throws ToolException UPSTREAM when {@code next} is a token this loop already followed (the page it names was
     *                       read), or when another page would be page {@code maxPages + 1}
     */
    public String next(String next) {
        pages++;
        if (next == null || next.isEmpty()) {
            return null;
        }
        if (!followed.add(next)) {
            throw new ToolException(ToolException.Kind.UPSTREAM, method + ": the server sent the same page token again "
                    + "(after page " + pages + "), so its pages would never end; not followed", null, true);
        }
        if (pages >= maxPages) {
            throw new ToolException(ToolException.Kind.UPSTREAM, method + ": the server has more pages after " + pages
                    + ", the most one call reads (" + maxPages + "); not followed", null, true);
        }
        return next;
    }
}
