package dev.agenttools.server.oauth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * The server's opaque secrets (tokens, codes, state): 256 random bits behind a prefix that says what they are, kept
 * only as SHA-256 digests. A digest of 256 random bits needs no salt or slow hash: there is nothing to guess.
 */
final class Secrets {
    static final String ACCESS_TOKEN = "agt_at_";
    static final String REFRESH_TOKEN = "agt_rt_";
    static final String CODE = "agt_code_";
    static final String STATE = "agt_st_";
    static final String CLIENT_ID = "agt_client_";
    /** Longer than any secret of ours: a longer one is refused before it is hashed. */
    static final int MAX_LENGTH = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private Secrets() {
    }

    static String next(String prefix) {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return prefix + Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** 43 characters of base64url: a PKCE verifier for Google (RFC 7636's minimum length, 256 bits). */
    static String verifier() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    static String digest(String secret) {
        return HexFormat.of().formatHex(sha256(secret.getBytes(StandardCharsets.UTF_8)));
    }

    /** RFC 7636 section 4.2: BASE64URL(SHA-256(ASCII(verifier))), without padding. */
    static String s256(String verifier) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(verifier.getBytes(StandardCharsets.US_ASCII)));
    }

    /** Compares in constant time (a PKCE challenge, for one). */
    static boolean same(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
