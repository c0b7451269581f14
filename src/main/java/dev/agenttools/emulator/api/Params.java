package dev.agenttools.emulator.api;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;

/** Reading and checking query parameters the way Gmail does; every failure names the parameter. */
public final class Params {
    static final int DEFAULT_MAX_RESULTS = 100;
    static final int MAX_MAX_RESULTS = 500;

    private Params() {
    }

    /** {@code maxResults}: default 100; values above 500 are cut to 500 as Gmail does; not a number is 400. */
    public static int maxResults(ApiRequest r) {
        String v = r.param("maxResults");
        if (v == null || v.isEmpty()) {
            return DEFAULT_MAX_RESULTS;
        }
        long n;
        try {
            n = Long.parseLong(v.strip());
        } catch (NumberFormatException e) {
            throw invalid("maxResults", v, "a whole number 1..500");
        }
        if (n < 0 || n > 0xFFFF_FFFFL) {
            throw invalid("maxResults", v, "a whole number 1..500");
        }
        return n == 0 ? DEFAULT_MAX_RESULTS : (int) Math.min(n, MAX_MAX_RESULTS);
    }

    public static boolean bool(ApiRequest r, String name) {
        String v = r.param(name);
        if (v == null || v.isEmpty()) {
            return false;
        }
        return switch (v.strip().toLowerCase(Locale.ROOT)) {
            case "true", "1" -> true;
            case "false", "0" -> false;
            default -> throw invalid(name, v, "true or false");
        };
    }

    public static long uint64(ApiRequest r, String name, boolean required) {
        String v = r.param(name);
        if (v == null || v.isEmpty()) {
            if (required) {
                throw ApiError.badRequest(name, "Required parameter " + name + " is missing");
            }
            return -1;
        }
        try {
            long n = Long.parseLong(v.strip());
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw invalid(name, v, "a non-negative whole number");
        }
    }

    public static ApiError invalid(String name, String value, String allowed) {
        return ApiError.badRequest(name, "Invalid value at '" + name + "', \"" + value + "\": must be " + allowed);
    }

    /**
     * A list's resultSizeEstimate as Gmail gives it: coarse, not a count. Captured: 201 for a 782-message mailbox
     * (messages and threads, first page); measured elsewhere: it saturates around 201. Modelled as exact up to 201
     * results past the page's start and 201 past it beyond (later pages' figures are not captured: a guess).
     */
    public static int sizeEstimate(int total, int start) {
        return Math.min(total, start + SIZE_ESTIMATE_CAP);
    }

    private static final int SIZE_ESTIMATE_CAP = 201;

    /** Page tokens are opaque to clients; ours carry the position after which the next page starts. */
    public static String pageToken(String kind, String position) {
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString((kind + ":" + position).getBytes(StandardCharsets.UTF_8));
    }

    /** The position inside a page token of this kind, or null when the request has none; a bad token is 400. */
    public static String pagePosition(ApiRequest r, String kind) {
        String token = r.param("pageToken");
        if (token == null || token.isEmpty()) {
            return null;
        }
        String position = position(token, kind);
        if (position == null) {
            throw invalidPageToken();
        }
        return position;
    }

    /** The position inside a token of this kind that {@link #pageToken} made, or null when it is not one. */
    public static String position(String token, String kind) {
        try {
            String decoded = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            if (decoded.startsWith(kind + ":")) {
                return decoded.substring(kind.length() + 1);
            }
        } catch (IllegalArgumentException e) {
            // not ours: fall through
        }
        return null;
    }

    /**
     * The position inside a page token of this kind as a number: {@code absent} without a token; a token that is not
     * ours, or whose position is not a whole number 0..2^63-1, is 400 (never an index error or a wrapped-around sum).
     */
    public static long pageOffset(ApiRequest r, String kind, long absent) {
        String position = pagePosition(r, kind);
        if (position == null) {
            return absent;
        }
        try {
            long n = Long.parseLong(position);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // falls through to the one message
        }
        throw invalidPageToken();
    }

    public static ApiError invalidPageToken() {
        return ApiError.badRequest("pageToken", "Invalid pageToken: use the nextPageToken of a previous response");
    }
}
