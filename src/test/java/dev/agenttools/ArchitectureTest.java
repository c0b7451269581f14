package dev.agenttools;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Keeps the package dependencies pointing one way (see STYLE.md). */
class ArchitectureTest {
    private static final Path MAIN = Path.of("src/main/java/dev/agenttools");

    @Test
    void theEmulatorImportsNothingOfOurs() throws IOException {
        // The emulator must not share code with the clients it tests, or it would agree with their mistakes.
        assertThat(importsOf("emulator")).noneMatch(i -> i.startsWith("dev.agenttools.") && !i.startsWith("dev.agenttools.emulator."));
    }

    @Test
    void nothingImportsTheCommandLine() throws IOException {
        try (Stream<Path> dirs = Files.list(MAIN)) {
            for (Path dir : dirs.filter(Files::isDirectory).toList()) {
                if (!dir.getFileName().toString().equals("cli")) {
                    assertThat(importsOf(dir.getFileName().toString())).noneMatch(i -> i.startsWith("dev.agenttools.cli."));
                }
            }
        }
    }

    private static List<String> importsOf(String pkg) throws IOException {
        try (Stream<Path> files = Files.walk(MAIN.resolve(pkg))) {
            return files.filter(f -> f.toString().endsWith(".java")).flatMap(f -> {
                try {
                    return Files.readAllLines(f).stream();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).filter(l -> l.startsWith("import ")).map(l -> l.replaceFirst("import (static )?", "").replace(";", "").strip()).toList();
        }
    }
}
