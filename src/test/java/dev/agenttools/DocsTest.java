package dev.agenttools;

import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The front page and the docs say what the code does, where they could drift: README's tool table is made from the
 * registry's own specs, and docs/configuration.md names exactly the settings the code reads. When a tool or a setting
 * changes, these fail, printing what the page should hold; {@code -Ddocs.update=true} writes README's generated
 * blocks (the tools, the error codes) itself:
 * {@code ./mvnw -B -q -o -DskipNpm -DskipContainerTest=true -DskipScaleTest=true
 * -Dsurefire.failIfNoSpecifiedTests=false -Dtest=DocsTest -Ddocs.update=true test}.
 */
class DocsTest {
    private static final Path README = Path.of("README.md");
    private static final Path CONFIGURATION = Path.of("docs/configuration.md");
    /** The front page stays a front page: depth goes to docs/. */
    private static final int README_MAX_LINES = 250;

    @Test
    void theReadmesToolTableIsTheRegistrys(@TempDir Path home) throws IOException {
        assertGenerated("tools", toolsTable(home));
    }

    @Test
    void theReadmesErrorTableIsTheErrorKinds() throws IOException {
        assertGenerated("errors", errorTable());
    }

    /**
     * README's block between {@code <!-- generated:NAME ... -->} and {@code <!-- /generated:NAME -->} is {@code content};
     * with {@code -Ddocs.update=true} a block that is not is rewritten instead.
     */
    private static void assertGenerated(String name, String content) throws IOException {
        String readme = Files.readString(README);
        Matcher begin = Pattern.compile("<!-- generated:" + name + "\\b[^>]*-->").matcher(readme);
        String endMark = "<!-- /generated:" + name + " -->";
        assertThat(begin.find()).as("README has a block <!-- generated:%s ... -->", name).isTrue();
        int end = readme.indexOf(endMark);
        assertThat(end).as("README's block %s ends with %s", name, endMark).isGreaterThan(begin.end());
        String shown = readme.substring(begin.end(), end).strip();
        if (!shown.equals(content) && Boolean.getBoolean("docs.update")) {
            Files.writeString(README, readme.substring(0, begin.end()) + "\n" + content + "\n" + readme.substring(end));
            return;
        }
        assertThat(shown).as("README's %s table (what it should be is below; -Ddocs.update=true writes it)", name)
                .isEqualTo(content);
    }

    /**
     * The error codes a call can answer, with a one-shot call's exit status, the HTTP service's status and what the code
     * tells the caller.
     */
    static String errorTable() {
        StringBuilder table = new StringBuilder("| code | exit status | HTTP | what it tells the caller |\n|---|---|---|---|\n");
        table.append("| (ok) | 0 | 200 | the answer is in `data` |\n");
        for (ToolException.Kind kind : ToolException.Kind.values()) {
            table.append("| `").append(kind.code()).append("` | ").append(kind.exitStatus()).append(" | ")
                    .append(kind.httpStatus()).append(" | ")
                    .append(kind.meaning().replace("|", "\\|")).append(" |\n");
        }
        return table.toString().strip();
    }

    /**
     * The registry's tools as README shows them: the command, the name a model calls it by ({@link Tools#SHORT_NAMES}),
     * what a call does to the user's data, and its description's first sentence.
     */
    static String toolsTable(Path home) {
        StringBuilder table = new StringBuilder("| command | model's name | effect | what it does |\n|---|---|---|---|\n");
        try (ToolRegistry registry = Tools.builder().settings(Settings.from(Map.of(
                "AGENT_TOOLS_HABIT_DB", home.resolve("habits.db").toString(), "AGENT_TOOLS_CACHE", "off",
                "AGENT_TOOLS_TRACKING", "none", "AGENT_TOOLS_CONFIG", home.resolve("none.properties").toString(),
                "XDG_CONFIG_HOME", home.toString(), "XDG_DATA_HOME", home.toString()))).build()) {
            for (ToolSpec spec : registry.specs()) {
                table.append("| `").append(spec.name()).append("` | `").append(Tools.SHORT_NAMES.get(spec.name()))
                        .append("` | ").append(spec.effect().name().toLowerCase(Locale.ROOT)).append(" | ")
                        .append(firstSentence(spec.description()).replace("|", "\\|")).append(" |\n");
            }
        }
        return table.toString().strip();
    }

    /**
     * The description's first clause: up to its first full stop or colon outside parentheses (a summary a reader scans;
     * the whole description is what {@code tools.list} and MCP's tools/list give a model).
     */
    static String firstSentence(String description) {
        int depth = 0;
        for (int i = 0; i < description.length(); i++) {
            char c = description.charAt(i);
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            boolean endsHere = i + 1 == description.length() || Character.isWhitespace(description.charAt(i + 1));
            if (depth == 0 && (c == '.' || c == ':') && endsHere) {
                return description.substring(0, i).strip();
            }
        }
        return description.strip();
    }

    @Test
    void everyToolHasTheNameAModelCallsItBy(@TempDir Path home) {
        assertThat(toolsTable(home)).doesNotContain("`null`");
    }

    @Test
    void theConfigurationPageNamesEverySettingTheCodeReadsAndNoOther() throws IOException {
        Set<String> read = settingsTheCodeReads();
        Set<String> documented = names(Files.readString(CONFIGURATION));
        Set<String> missing = new TreeSet<>(read);
        missing.removeAll(documented);
        Set<String> unknown = new TreeSet<>(documented);
        unknown.removeAll(read);
        assertThat(missing).as("settings the code reads that docs/configuration.md does not name").isEmpty();
        assertThat(unknown).as("settings docs/configuration.md names that no code reads").isEmpty();
    }

    @Test
    void theListOfKnownSettingsTheConfigFileIsCheckedAgainstIsEverySettingTheCodeReads() throws IOException {
        Path list = Path.of("src/main/resources/dev/agenttools/settings.txt");
        String expected = "# every setting the code reads: a config-file key not here is warned about (DocsTest keeps it)\n"
                + String.join("\n", settingsTheCodeReads()) + "\n";
        if (Boolean.getBoolean("docs.update") && !expected.equals(Files.exists(list) ? Files.readString(list) : "")) {
            Files.writeString(list, expected);
        }
        assertThat(Files.readString(list)).as("%s (-Ddocs.update=true writes it)", list).isEqualTo(expected);
    }

    /**
     * Every {@code AGENT_TOOLS_*} setting the code reads: the names written as string literals in the Java sources
     * (Settings, each family's settings record, the commands), the bash launcher's and the Python client package's.
     */
    static Set<String> settingsTheCodeReads() throws IOException {
        Set<String> names = new TreeSet<>();
        Pattern literal = Pattern.compile("\"(AGENT_TOOLS_[A-Z0-9_]*[A-Z0-9])\"");
        for (Path file : files(Path.of("src/main/java"), ".java")) {
            literal.matcher(Files.readString(file)).results().forEach(r -> names.add(r.group(1)));
        }
        names.addAll(names(Files.readString(Path.of("agent-tools"))));
        for (Path file : files(Path.of("clients/python/agent_tools"), ".py")) {
            names.addAll(names(Files.readString(file)));
        }
        return names;
    }

    @Test
    void theTestsSeeNoSettingFromTheDevelopersShell() throws IOException {
        // surefire drops the settings pom.xml lists from the environment it hands the tests, and sets two of its own
        String pom = Files.readString(Path.of("pom.xml"));
        Matcher listed = Pattern.compile("<agent\\.tools\\.environment>([^<]*)</agent\\.tools\\.environment>").matcher(pom);
        assertThat(listed.find()).as("pom.xml's agent.tools.environment").isTrue();
        Set<String> isolated = new TreeSet<>(List.of(listed.group(1).split(",")));
        Matcher set = Pattern.compile("<environmentVariables>(.*?)</environmentVariables>", Pattern.DOTALL).matcher(pom);
        assertThat(set.find()).isTrue();
        isolated.addAll(names(set.group(1).replaceAll("<!--.*?-->", "")));
        Set<String> reachTheTests = new TreeSet<>(settingsTheCodeReads());
        reachTheTests.removeAll(isolated);
        assertThat(reachTheTests).as("settings of the developer's shell that would reach the tests").isEmpty();
    }

    @Test
    void theReadmeAndTheDocsNameNoSettingTheCodeDoesNotRead() throws IOException {
        // the history (CHANGES.md) may name settings that are gone; nothing else may
        Set<String> known = settingsTheCodeReads();
        Pattern buildArgument = Pattern.compile("(?m)^ARG (AGENT_TOOLS_\\w+)");
        for (Path containerfile : List.of(Path.of("Containerfile"), Path.of("examples/python-agent/Containerfile"))) {
            buildArgument.matcher(Files.readString(containerfile)).results().forEach(r -> known.add(r.group(1)));
        }
        List<Path> pages = new ArrayList<>(List.of(README, Path.of("clients/python/README.md")));
        pages.addAll(files(Path.of("docs"), ".md"));
        for (Path page : pages) {
            Set<String> unknown = names(Files.readString(page));
            unknown.removeAll(known);
            assertThat(unknown).as("settings %s names that no code reads", page).isEmpty();
        }
    }

    private static Set<String> names(String text) {
        Set<String> names = new TreeSet<>();
        Pattern.compile("\\bAGENT_TOOLS_[A-Z0-9_]*[A-Z0-9]\\b").matcher(text).results().forEach(r -> names.add(r.group()));
        return names;
    }

    private static List<Path> files(Path root, String suffix) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(f -> f.toString().endsWith(suffix)).sorted().toList();
        }
    }

    @Test
    void theReadmeIsAFrontPage() throws IOException {
        List<String> lines = Files.readAllLines(README);
        assertThat(lines).as("README's lines (depth goes to docs/)").hasSizeLessThanOrEqualTo(README_MAX_LINES);
        // the two commands of the project's rule: the main job and the tests
        assertThat(String.join("\n", lines)).contains("./agent-tools bench").contains("./mvnw -B verify");
    }

    @Test
    void everyLocalLinkInTheReadmeAndTheDocsLeadsToAFileAndHeading() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(README, Path.of("CHANGES.md")));
        pages.addAll(files(Path.of("docs"), ".md"));
        Pattern link = Pattern.compile("\\]\\(([^)#\\s]*)(?:#([^)\\s]*))?\\)");
        List<String> broken = new ArrayList<>();
        for (Path page : pages) {
            for (Matcher m = link.matcher(Files.readString(page)); m.find(); ) {
                String target = m.group(1);
                if (target.matches("[a-z]+:.*")) {
                    continue;
                }
                Path file = target.isEmpty() ? page : page.toAbsolutePath().getParent().resolve(target).normalize();
                if (!Files.exists(file)) {
                    broken.add(page + " -> " + target);
                } else if (m.group(2) != null && file.toString().endsWith(".md") && !anchors(file).contains(m.group(2))) {
                    broken.add(page + " -> " + target + "#" + m.group(2));
                }
            }
        }
        assertThat(broken).as("links to files or headings that do not exist").isEmpty();
    }

    /** The anchors GitHub makes of a page's headings: lower case, punctuation dropped, spaces as hyphens. */
    private static Set<String> anchors(Path page) throws IOException {
        Set<String> anchors = new TreeSet<>();
        for (String line : Files.readAllLines(page)) {
            if (line.matches("#{1,6} .*")) {
                anchors.add(line.replaceFirst("#+ ", "").strip().toLowerCase(Locale.ROOT)
                        .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
            }
        }
        return anchors;
    }
}
