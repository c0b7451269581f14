package dev.agenttools.mailindex;

import dev.agenttools.tool.Diagnostics;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The one mail index a Gmail service keeps open for its lists, and what is done when it fails them: opened on the
 * first list that uses it (SQLite loads then, not in a JVM that never lists); a damaged file set aside and a new one
 * made; one replaced by another process opened anew; one that cannot be used now left alone for
 * {@link #RETRY} with one line on stderr. Lists never fail for the index: they go on without it. Thread-safe.
 */
public final class OpenIndex implements AutoCloseable {
    /** How long after an index could not be opened or used it is tried again (it may have been a passing state). */
    private static final Duration RETRY = Duration.ofMinutes(1);
    private final CacheSettings settings;
    private volatile MailIndex index;
    /** When an index that could not be opened is tried again (System.nanoTime); meaningful while index is null. */
    private long retryAt;
    private boolean failed;

    /** What a list does with the index (its Gmail calls may be interrupted). */
    @FunctionalInterface
    public interface Work<T> {
        T run(MailIndex index) throws InterruptedException;
    }

    /** @param settings where the index is and how large; {@link CacheSettings#OFF}: none */
    public OpenIndex(CacheSettings settings) {
        this.settings = settings;
    }

    /**
     * Runs {@code work} with the index: its answer, or empty when there is no index to use now (off, refused, failing)
     * or the index failed {@code work} (then it is dealt with as its {@link MailIndexException} asks, and the caller
     * answers without it). Whatever else {@code work} throws is the caller's.
     */
    public <T> Optional<T> use(Work<T> work) throws InterruptedException {
        MailIndex i = index();
        if (i == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(work.run(i));
        } catch (MailIndexException e) {
            switch (e) {
                // set aside, and a new one made by the next list; this one goes on without it
                case MailIndexException.Damaged damaged -> damaged(i, damaged);
                case MailIndexException.Replaced _ -> replaced(i);
                // an index that cannot be read or written now (read-only, disk full) must not fail the list
                case MailIndexException.Unavailable _, MailIndexException.Refused _ -> failed(i, e);
            }
            return Optional.empty();
        }
    }

    /**
     * The index, opened on first use; null when the settings say off or the index cannot be opened now (said on
     * stderr, once per attempt: the lists go on without it, and it is tried again {@link #RETRY} later).
     */
    private MailIndex index() {
        if (!settings.enabled()) {
            return null;
        }
        MailIndex i = index;
        if (i != null) {
            return i;
        }
        synchronized (this) {
            if (index == null && (!failed || System.nanoTime() - retryAt >= 0)) {
                index = openOrRebuild();
                failed = index == null;
                retryAt = System.nanoTime() + RETRY.toNanos();
            }
            return index;
        }
    }

    /**
     * The index, or a new one in place of a file that is damaged (set aside as {@code <file>.damaged-<time>}, never
     * deleted); null when it is refused (a link, a folder others may write, an older version's WAL file in use) or
     * cannot be opened now, said on stderr.
     */
    private MailIndex openOrRebuild() {
        try {
            return MailIndex.open(settings.file(), settings.maxMessages());
        } catch (MailIndexException.Damaged damaged) {
            setAside(damaged);
            try {
                return MailIndex.open(settings.file(), settings.maxMessages());
            } catch (RuntimeException again) {
                Diagnostics.warn("listing without the mail index: " + again.getMessage());
                return null;
            }
        } catch (RuntimeException e) {
            Diagnostics.warn("listing without the mail index: " + e.getMessage());
            return null;
        }
    }

    /**
     * What a list does when the index it used turned out damaged: the index is closed and its file set aside (unless
     * another list or process did so first), stderr says so once, and the next list opens a new one.
     */
    private void damaged(MailIndex broken, MailIndexException.Damaged why) {
        synchronized (this) {
            if (index != broken) {
                return; // another list of this process set it aside already
            }
            index = null;
            failed = false;
            broken.close();
            setAside(why);
        }
    }

    private void setAside(MailIndexException.Damaged why) {
        try {
            Path aside = why.setAside();
            Diagnostics.warn("the mail index " + settings.file() + " is damaged (" + why.getMessage() + "); "
                    + (aside == null ? "another process set it aside already" : "set aside as " + aside) + ", starting a new one");
        } catch (IOException | RuntimeException e) {
            Diagnostics.warn("the mail index " + settings.file() + " is damaged (" + why.getMessage()
                    + ") and could not be set aside: " + e.getMessage());
        }
    }

    /**
     * What a list does when the index it used failed otherwise (a read-only or full disk, another process's lock held
     * past the busy timeout): the index is closed and left alone for {@link #RETRY}, the lists going on without it,
     * so that a lasting failure costs one line on stderr a minute, not one per call and a second listing each.
     */
    private void failed(MailIndex failing, MailIndexException why) {
        synchronized (this) {
            if (index != failing) {
                return;
            }
            index = null;
            failed = true;
            retryAt = System.nanoTime() + RETRY.toNanos();
            failing.close();
        }
        Diagnostics.warn("listing without the mail index for " + RETRY.toSeconds() + " s: " + why.getMessage());
    }

    /** What a list does when the index it used was replaced under it (another process set it aside): open it anew. */
    private void replaced(MailIndex stale) {
        synchronized (this) {
            if (index == stale) {
                index = null;
                failed = false;
                stale.close();
            }
        }
    }

    /** Closes the index when one was opened. */
    @Override
    public void close() {
        MailIndex i = index;
        if (i != null) {
            i.close();
        }
    }
}
