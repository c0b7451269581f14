package dev.agenttools;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The quick loop ({@code ./mvnw -B -Dquick test}) leaves out the test classes tagged {@code process}, those that start
 * other processes (JVMs, Node, Python, Go, Chromium, dynalite, Maven): a class that starts one without the tag would
 * make the quick loop slow, or fail where Node's packages and the corpora are not installed. A class starts one when
 * its source builds a {@code ProcessBuilder} or names a class that does (a test helper such as
 * {@code AgentToolsProcess} or {@code Dynalite}, or the benchmark's process rows in the main code).
 */
class ProcessTagTest {
    private static final Pattern TAGGED = Pattern.compile("^@Tag\\(\"process\"\\)$", Pattern.MULTILINE);

    @Test
    void everyTestClassThatStartsAProcessIsTaggedProcess() throws IOException {
        // the classes that start processes (the benchmark's process rows in the main code, the tests' helpers), and the
        // tests' helpers that use one (DynaliteAccess), to a fixed point
        Map<String, String> helpers = new TreeMap<>();
        Set<String> starters = new TreeSet<>();
        for (Path root : List.of(Path.of("src/main/java"), Path.of("src/test/java"))) {
            for (Path file : javaFiles(root)) {
                String name = file.getFileName().toString().replace(".java", "");
                String code = code(Files.readString(file));
                if (name.endsWith("Test")) {
                    continue;
                }
                if (code.contains("ProcessBuilder")) {
                    starters.add(name);
                }
                if (root.startsWith("src/test")) {
                    helpers.put(name, code);
                }
            }
        }
        for (int before = -1; before != starters.size(); ) {
            before = starters.size();
            Pattern uses = Pattern.compile("\\b(" + String.join("|", starters) + ")\\b");
            helpers.forEach((name, code) -> {
                if (uses.matcher(code).find()) {
                    starters.add(name);
                }
            });
        }
        assertThat(starters).as("the helpers that start processes").contains("AgentToolsProcess", "Dynalite", "GoPeer");
        Pattern startsOne = Pattern.compile("ProcessBuilder|\\b(" + String.join("|", starters) + ")\\b");

        Set<String> untagged = new TreeSet<>();
        Set<String> taggedForNothing = new TreeSet<>();
        for (Path file : javaFiles(Path.of("src/test/java"))) {
            String name = file.getFileName().toString();
            if (!name.endsWith("Test.java")) {
                continue;
            }
            String source = Files.readString(file);
            boolean starts = startsOne.matcher(code(source)).find();
            boolean tagged = TAGGED.matcher(source).find();
            if (starts && !tagged) {
                untagged.add(name);
            } else if (tagged && !starts) {
                taggedForNothing.add(name);
            }
        }
        assertThat(untagged).as("test classes that start processes without @Tag(\"process\") (starters: %s)", starters)
                .isEmpty();
        assertThat(taggedForNothing).as("test classes tagged process that start none: the quick loop would miss them")
                .isEmpty();
    }

    @Test
    void onlyCodeNamesAClass() {
        assertThat(code("new ProcessBuilder(\"x\")")).contains("ProcessBuilder");
        assertThat(code("/** a Dynalite */ var s = \"http://x/\\\"Dynalite\"; // AgentToolsProcess\nint i;"))
                .doesNotContain("Dynalite").doesNotContain("AgentToolsProcess").contains("int i;");
    }

    /** The source without its comments, string literals and text blocks: what names a class there is code. */
    static String code(String source) {
        return source.replaceAll("(?s)\"\"\".*?\"\"\"", "\"\"")
                .replaceAll("\"(?:[^\"\\\\\n]|\\\\.)*\"", "\"\"")
                .replaceAll("(?s)/\\*.*?\\*/", " ")
                .replaceAll("//[^\n]*", " ");
    }

    private static List<Path> javaFiles(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        }
    }
}
