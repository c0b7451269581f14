package dev.agenttools.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A folder of the benchmark's own for a store it measures (owner-only, as the stores require), and its removal. */
final class TempFolder {
    private TempFolder() {
    }

    /** Deletes the files the measured store left in {@code dir} (it makes no subfolders), then {@code dir}. */
    static void delete(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
        }
        Files.deleteIfExists(dir);
    }
}
