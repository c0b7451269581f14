package dev.agenttools.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.stream.Stream;

/**
 * The checkout's sources, for a resident server run from a checkout's {@code target/launcher/agent-tools.jar} (the
 * launcher's own build; {@code target/agent-tools.jar}, a developer's, works too): the launcher rebuilds the jar when
 * a source is newer than it, but only when it starts a JVM; the server checks in its stead (twice a second) and
 * stops when a source changed, so that the next call starts a new server on a new jar. Nothing to watch for a jar
 * that is not in a checkout.
 */
final class SourceWatch {
    private final Path sources;
    private final Path pom;

    private SourceWatch(Path sources, Path pom) {
        this.sources = sources;
        this.pom = pom;
    }

    /**
     * The sources of the checkout {@code jar} was built in (the nearest folder above the jar's, at most two up, with
     * a pom.xml and src/main), if it has any.
     */
    static SourceWatch of(Path jar) {
        Path dir = jar.toAbsolutePath().getParent();
        for (int up = 0; up < 2 && dir != null; up++) {
            dir = dir.getParent();
            if (dir != null && Files.isDirectory(dir.resolve("src/main")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return new SourceWatch(dir.resolve("src/main"), dir.resolve("pom.xml"));
            }
        }
        return new SourceWatch(null, null);
    }

    /** Whether a source file or the pom was modified after {@code built} (the jar's time); false when unreadable. */
    boolean newerThan(FileTime built) {
        if (sources == null || built == null) {
            return false;
        }
        try (Stream<Path> files = Files.walk(sources)) {
            return Files.getLastModifiedTime(pom).compareTo(built) > 0
                    || files.anyMatch(f -> modified(f).compareTo(built) > 0);
        } catch (IOException | UncheckedIOException e) {
            return false; // a file went away while walked: the next look sees the new state
        }
    }

    private static FileTime modified(Path f) {
        try {
            return Files.getLastModifiedTime(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
