package dev.agenttools.google;

import java.nio.file.Path;

/**
 * What every Google API the registry reaches shares, read once and sealed: whom to trust beyond the system's CA
 * certificates, and the token for calls that bring none. Gmail's and Calendar's own settings (root URL, quota,
 * batch size) are theirs; the stored sign-in is the auth settings'.
 *
 * @param trustedCertificate an extra CA certificate (PEM) to trust, such as the emulator's, or null
 * @param accessToken        a token to use when a call passes none, or null (then the stored sign-in)
 */
public record GoogleSettings(Path trustedCertificate, String accessToken) {
    /** Google's CA certificates only, and the stored sign-in. */
    public static final GoogleSettings DEFAULT = new GoogleSettings(null, null);

    public GoogleSettings {
        String flaw = accessToken == null || accessToken.isBlank() ? null : AccessToken.flaw(accessToken);
        if (flaw != null) {
            throw new IllegalArgumentException("the access token is not an OAuth access token: it " + flaw + " (the value is not shown)");
        }
        if (accessToken != null && accessToken.isBlank()) {
            accessToken = null;
        }
    }

    public GoogleSettings withAccessToken(String token) {
        return new GoogleSettings(trustedCertificate, token);
    }

    /** The same, calls without a token of their own using the stored sign-in. */
    public GoogleSettings withoutAccessToken() {
        return new GoogleSettings(trustedCertificate, null);
    }

    public GoogleSettings withTrustedCertificate(Path pem) {
        return new GoogleSettings(pem, accessToken);
    }

    @Override
    public String toString() {
        // never print the token
        return "GoogleSettings[trustedCertificate=" + trustedCertificate + ", accessToken=" + (accessToken == null ? "none" : "set") + "]";
    }
}
