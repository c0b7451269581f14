package dev.agenttools.bench;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Where the project's own files are for a benchmark run from it: the project folder is an ancestor of where this
 * class was loaded from ({@code target/classes}, the jar in {@code target/} or the launcher's {@code target/launcher/}),
 * a few levels up. The Go peer and the Python client's benchmark script are found so.
 */
final class ProjectFolders {
    private ProjectFolders() {
    }

    /** {@code from} and a few levels up, nearest first. */
    static Stream<Path> upFrom(Path from) {
        return Stream.iterate(from, p -> p != null && from.getNameCount() - p.getNameCount() <= 4, Path::getParent);
    }

    /** The folders this class may be in the project of, nearest first. */
    static Stream<Path> candidates() {
        return upFrom(ownLocation());
    }

    /** The file at {@code relative} in the project folder (one with a pom.xml), if there is one. */
    static Optional<Path> find(Path relative) {
        return candidates().filter(p -> Files.isRegularFile(p.resolve("pom.xml"))).map(p -> p.resolve(relative))
                .filter(Files::isRegularFile).findFirst();
    }

    static Path ownLocation() {
        try {
            return Path.of(ProjectFolders.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toAbsolutePath();
        } catch (URISyntaxException | SecurityException | NullPointerException e) {
            return Path.of("").toAbsolutePath();
        }
    }
}
