package dev.agenttools.server.oauth;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * AES-256-GCM for the secrets the server must read back (each user's Google refresh token, the PKCE verifier of a
 * sign-in under way): a fresh 96-bit nonce per encryption, and associated data that binds a ciphertext to its row (the
 * account address), so that a ciphertext copied to another row does not decrypt. The first key encrypts; any listed
 * key decrypts, found by the id stored with the ciphertext. The JDK's {@code javax.crypto} does the cryptography.
 * Thread-safe (a {@link Cipher} per call).
 */
final class TokenCipher {
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A ciphertext and the id of the key that made it. */
    record Sealed(String keyId, byte[] bytes) {
    }

    /** The key named is not listed, or the ciphertext does not decrypt with it (tampered, or another row's). */
    static final class Unreadable extends Exception {
        private static final long serialVersionUID = 1L;

        Unreadable(String message) {
            super(message);
        }
    }

    private final String currentId;
    private final Map<String, SecretKeySpec> keys = new LinkedHashMap<>();

    TokenCipher(List<OAuthSettings.Key> keys) {
        for (OAuthSettings.Key k : keys) {
            this.keys.put(k.id(), new SecretKeySpec(k.secret(), "AES"));
        }
        this.currentId = keys.getFirst().id();
    }

    /** The id of the key that {@link #seal} uses: the first one listed. */
    String currentKeyId() {
        return currentId;
    }

    Sealed seal(String plaintext, String associated) {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, keys.get(currentId), new GCMParameterSpec(TAG_BITS, nonce));
            c.updateAAD(associated.getBytes(StandardCharsets.UTF_8));
            byte[] sealed = c.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
            return new Sealed(currentId, ByteBuffer.allocate(NONCE_BYTES + sealed.length).put(nonce).put(sealed).array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is in every JDK: " + e.getMessage(), e);
        }
    }

    String open(Sealed sealed, String associated) throws Unreadable {
        SecretKeySpec key = keys.get(sealed.keyId());
        if (key == null) {
            throw new Unreadable("encrypted with key " + sealed.keyId() + ", which is not listed (keys: "
                    + String.join(", ", keys.keySet()) + ")");
        }
        if (sealed.bytes().length < NONCE_BYTES + TAG_BITS / 8) {
            throw new Unreadable("a ciphertext of " + sealed.bytes().length + " bytes is too short");
        }
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, sealed.bytes(), 0, NONCE_BYTES));
            c.updateAAD(associated.getBytes(StandardCharsets.UTF_8));
            return new String(c.doFinal(sealed.bytes(), NONCE_BYTES, sealed.bytes().length - NONCE_BYTES), StandardCharsets.UTF_8);
        } catch (AEADBadTagException e) {
            throw new Unreadable("the ciphertext does not decrypt with key " + sealed.keyId() + " (altered, or another row's)");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is in every JDK: " + e.getMessage(), e);
        }
    }
}
