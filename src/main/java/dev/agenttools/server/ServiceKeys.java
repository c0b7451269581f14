package dev.agenttools.server;

import dev.agenttools.tool.Diagnostics;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * The service keys trusted agent backends present ({@code Authorization: Bearer KEY}), kept only as SHA-256 hashes:
 * from a file (one {@code sha256:HEX} or bare HEX per line, {@code #} comments), read again when it changes, so a key
 * is added or withdrawn without a restart; and from a list given at start. A presented key is hashed and compared with
 * every stored hash in constant time (no early exit), so neither the time taken nor an error tells how close a guess was.
 * A file other users may write is refused (they could add a key of their own).
 * Thread-safe.
 */
final class ServiceKeys {
    /** How often, at most, the file's modification time and size are looked at. */
    private static final long RECHECK_NANOS = 1_000_000_000L;
    private static final int MAX_KEY_LENGTH = 512;

    private final Path file;
    private final List<byte[]> fixed;
    private volatile List<byte[]> fromFile = List.of();
    private volatile long fileStamp = Long.MIN_VALUE;
    private volatile long checkedAt;

    /**
     * @param file     the hash file (null: none)
     * @param hashes   hashes given at start, comma-separated (null or blank: none)
     * @param required whether at least one key must be set (without one, every key is refused)
     * @throws IllegalArgumentException when a hash is not 64 hex digits, the file cannot be read, or no key is set at
     *                                  all though one is required
     */
    ServiceKeys(Path file, String hashes) {
        this(file, hashes, true);
    }

    ServiceKeys(Path file, String hashes, boolean required) {
        this.file = file;
        this.fixed = parse(hashes == null ? "" : hashes.replace(',', '\n'), "AGENT_TOOLS_SERVICE_KEY_HASHES");
        if (file != null) {
            reload(true);
        }
        if (required && fixed.isEmpty() && fromFile.isEmpty()) {
            throw new IllegalArgumentException("no service key: name a file of SHA-256 hashes with --service-keys or "
                    + "AGENT_TOOLS_SERVICE_KEYS, or list hashes in AGENT_TOOLS_SERVICE_KEY_HASHES (make one with: "
                    + "printf %s \"$KEY\" | sha256sum)");
        }
    }

    /** The SHA-256 hash of a key, as the file holds it. */
    static String hash(String key) {
        return HexFormat.of().formatHex(sha256(key));
    }

    /** True when {@code authorization} is {@code Bearer KEY} with a key whose hash is trusted now. */
    boolean accepts(String authorization) {
        if (authorization == null || authorization.length() > MAX_KEY_LENGTH + 7
                || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        String key = authorization.substring(7).strip();
        if (key.isEmpty()) {
            return false;
        }
        if (file != null) {
            reload(false);
        }
        byte[] presented = sha256(key);
        boolean match = false;
        for (byte[] h : fixed) {
            match |= MessageDigest.isEqual(h, presented);
        }
        for (byte[] h : fromFile) {
            match |= MessageDigest.isEqual(h, presented);
        }
        return match;
    }

    private void reload(boolean atStart) {
        long now = System.nanoTime();
        if (!atStart && now - checkedAt < RECHECK_NANOS) {
            return;
        }
        synchronized (this) {
            checkedAt = now;
            try {
                // another local user who could write the file could add a key of their own: refused, as ssh does
                var permissions = Files.getPosixFilePermissions(file);
                if (permissions.contains(PosixFilePermission.GROUP_WRITE)
                        || permissions.contains(PosixFilePermission.OTHERS_WRITE)) {
                    throw new IllegalArgumentException(file + " may be written by other users (mode "
                            + PosixFilePermissions.toString(permissions) + "): make it writable by its owner "
                            + "only (chmod go-w)");
                }
                long stamp = Files.getLastModifiedTime(file).toMillis() * 31 + Files.size(file);
                if (stamp == fileStamp) {
                    return;
                }
                fromFile = parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
                fileStamp = stamp;
            } catch (IOException | IllegalArgumentException e) {
                if (atStart) {
                    throw new IllegalArgumentException("service keys: " + (e instanceof IOException
                            ? "cannot read " + file + ": " + e.getMessage() : e.getMessage()), e);
                }
                // a file being rewritten, or a bad edit: the keys read last stay until it is readable again
                Diagnostics.line("agent-tools server: service keys not reloaded: " + e.getMessage());
            }
        }
    }

    private static List<byte[]> parse(String text, String source) {
        List<byte[]> hashes = new ArrayList<>();
        int lineNumber = 0;
        for (String line : text.split("\n")) {
            lineNumber++;
            String l = line.replaceFirst("#.*", "").strip().toLowerCase(Locale.ROOT);
            if (l.isEmpty()) {
                continue;
            }
            if (l.startsWith("sha256:")) {
                l = l.substring(7);
            }
            if (!l.matches("[0-9a-f]{64}")) {
                throw new IllegalArgumentException(source + " line " + lineNumber + ": not a SHA-256 hash (64 hex digits, "
                        + "optionally after sha256:); store hashes, never keys");
            }
            hashes.add(HexFormat.of().parseHex(l));
        }
        return List.copyOf(hashes);
    }

    private static byte[] sha256(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
