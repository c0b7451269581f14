package dev.agenttools.mailindex;

import dev.agenttools.store.SqliteStore;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Trouble with the mail index, and only with it: a caller that catches this never swallows an unrelated failure of
 * its own. Four kinds, each asking for its own remedy ({@link OpenIndex} applies them): {@link Refused} (the file is
 * not to be used as it stands), {@link Damaged} (set it aside and start a new one), {@link Replaced} (another process
 * did that: open it anew) and {@link Unavailable} (busy, disk full, read-only: go on without it for now).
 */
public abstract sealed class MailIndexException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private MailIndexException(String message) {
        super(message);
    }

    private MailIndexException(String message, Throwable cause) {
        super(message, cause);
    }

    /** The file is not used as it stands (a link, a folder others may write, an older version's WAL file in use). */
    static final class Refused extends MailIndexException {
        private static final long serialVersionUID = 1L;

        Refused(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The path names another file than the one opened: open it anew. */
    static final class Replaced extends MailIndexException {
        private static final long serialVersionUID = 1L;

        Replaced(String message) {
            super(message);
        }
    }

    /**
     * The file is damaged: a page SQLite cannot read, not a database at all, or an entry that is not one. Names the
     * file by its real path and which file it was (its file key), so that only that file is ever set aside.
     */
    static final class Damaged extends MailIndexException {
        private static final long serialVersionUID = 1L;
        private final transient Path file;
        private final transient Object fileKey;

        Damaged(String message, Throwable cause, Path file, Object fileKey) {
            super(message, cause);
            this.file = file;
            this.fileKey = fileKey;
        }

        /**
         * Moves the damaged file aside as {@code <file>.damaged-<time>} (with its journal), never deleting it, unless
         * the path names another file by now (another process set it aside and started a new one).
         *
         * @return where it went, or null when it was not moved
         */
        Path setAside() throws IOException {
            return SqliteStore.setAside(file, fileKey);
        }
    }

    /** The index cannot be read or written now (busy past the timeout, a full or read-only disk, closed). */
    static final class Unavailable extends MailIndexException {
        private static final long serialVersionUID = 1L;

        Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
