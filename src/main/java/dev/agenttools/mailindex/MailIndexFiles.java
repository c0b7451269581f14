package dev.agenttools.mailindex;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.util.Map;
import java.util.Optional;

/** The mail index as `agent-tools cache` sees it: what it holds, and forgetting it. */
public final class MailIndexFiles {
    private MailIndexFiles() {
    }

    /**
     * Messages held per account ({@code server|address}); empty when there is no index file (nothing was kept).
     *
     * @throws MailIndexException naming the file when it is refused (a symbolic link, a folder others may write),
     *                            damaged or cannot be read now
     */
    public static Optional<Map<String, Long>> status(CacheSettings settings) {
        if (settings.file() == null || !Files.exists(settings.file(), LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        try (MailIndex index = MailIndex.open(settings.file(), settings.maxMessages())) {
            return Optional.of(index.counts());
        }
    }

    /**
     * Forgets every account's messages and sync state (a damaged index is set aside, as a list would); answers
     * whether there was an index.
     */
    public static boolean clear(CacheSettings settings) {
        if (settings.file() == null || !Files.exists(settings.file(), LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try (MailIndex index = MailIndex.open(settings.file(), settings.maxMessages())) {
            index.clear();
        } catch (MailIndexException.Damaged damaged) {
            try {
                damaged.setAside();
            } catch (IOException e) {
                throw new UncheckedIOException("the mail index " + settings.file() + " is damaged and cannot be set aside: "
                        + e.getMessage(), e);
            }
        }
        return true;
    }
}
