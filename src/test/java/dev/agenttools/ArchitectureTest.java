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
    void dependenciesPointOneWay() throws IOException {
        assertImportsOnly("tool");
        assertImportsOnly("store"); // the SQLite files' plumbing: mailindex and tracking share it
        assertImportsOnly("google", "tool");
        assertImportsOnly("gmail", "tool", "google", "auth", "mailindex");
        assertImportsOnly("mailindex", "tool", "store"); // the local index of message summaries: nothing of Gmail
        assertImportsOnly("calendar", "tool", "google", "auth");
        assertImportsOnly("mcp", "tool");
        assertImportsOnly("tracking", "tool", "store");
        assertImportsOnly("auth");
        assertImportsOnly("daemon"); // the launcher's wire and the resident server's socket; cli gives it the tools
        assertImportsOnly("bench", "tool", "emulator", "Tools", "tracking");
    }

    @Test
    void onlyTheMcpPackageImportsTheMcpSdk() throws IOException {
        try (Stream<Path> dirs = Files.list(MAIN)) {
            for (Path dir : dirs.filter(Files::isDirectory).toList()) {
                if (!dir.getFileName().toString().equals("mcp")) {
                    assertThat(importsOf(dir.getFileName().toString())).as(dir.toString())
                            .noneMatch(i -> i.startsWith("io.modelcontextprotocol."));
                }
            }
        }
    }

    /** Our imports from {@code pkg} stay within itself and the named packages (or the front door class, "Tools"). */
    private static void assertImportsOnly(String pkg, String... allowed) throws IOException {
        List<String> ours = importsOf(pkg).stream().filter(i -> i.startsWith("dev.agenttools.")).toList();
        for (String i : ours) {
            String rest = i.substring("dev.agenttools.".length());
            String target = rest.contains(".") ? rest.substring(0, rest.indexOf('.')) : rest;
            assertThat(target).as("%s imports %s", pkg, i).isIn(concat(pkg, allowed));
        }
    }

    private static List<String> concat(String first, String... rest) {
        List<String> all = new java.util.ArrayList<>(List.of(rest));
        all.add(first);
        return all;
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

    /** A fully qualified name written in code (not in a comment or a string): a dependency an import would show. */
    private static final java.util.regex.Pattern QUALIFIED = java.util.regex.Pattern.compile("\\bdev\\.agenttools\\.[a-z]+\\.[A-Z]\\w*");
    private static final java.util.regex.Pattern STRING = java.util.regex.Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");

    /** What one source line depends on of ours: its import, or the fully qualified names in its code. */
    private static Stream<String> referencesIn(String line) {
        String l = line.strip();
        if (l.startsWith("import ")) {
            return Stream.of(l.replaceFirst("import (static )?", "").replace(";", "").strip());
        }
        if (l.startsWith("*") || l.startsWith("/*") || l.startsWith("//") || l.startsWith("package ")) {
            return Stream.empty();
        }
        String code = STRING.matcher(l.replaceFirst("//.*", "")).replaceAll("\"\"");
        return QUALIFIED.matcher(code).results().map(java.util.regex.MatchResult::group);
    }

    /** Our dependencies from {@code pkg}: its imports and the fully qualified names its code uses. */
    private static List<String> importsOf(String pkg) throws IOException {
        try (Stream<Path> files = Files.walk(MAIN.resolve(pkg))) {
            return files.filter(f -> f.toString().endsWith(".java")).flatMap(f -> {
                try {
                    return Files.readAllLines(f).stream();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).flatMap(ArchitectureTest::referencesIn).toList();
        }
    }
}
