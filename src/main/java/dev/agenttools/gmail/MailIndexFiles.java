package dev.agenttools.gmail;

import java.nio.file.Files;
import java.util.Map;
import java.util.Optional;

/** The mail index as `agent-tools cache` sees it: what it holds, and forgetting it. */
public final class MailIndexFiles {
    private MailIndexFiles() {
    }

    /** Messages held per account ({@code server|address}); empty when there is no index file (nothing was kept). */
    public static Optional<Map<String, Long>> status(CacheSettings settings) {
        if (settings.file() == null || !Files.exists(settings.file())) {
            return Optional.empty();
        }
        try (MailIndex index = MailIndex.open(settings.file(), settings.maxMessages())) {
            return Optional.of(index.counts());
        }
    }

    /** Forgets every account's messages and sync state; answers whether there was an index. */
    public static boolean clear(CacheSettings settings) {
        if (settings.file() == null || !Files.exists(settings.file())) {
            return false;
        }
        try (MailIndex index = MailIndex.open(settings.file(), settings.maxMessages())) {
            index.clear();
        }
        return true;
    }
}
