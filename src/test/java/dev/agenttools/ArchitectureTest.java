package dev.agenttools;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Keeps the package dependencies pointing one way (see STYLE.md). */
class ArchitectureTest {
    private static final Path MAIN = Path.of("src/main/java/dev/agenttools");
    private static final Path TEST = Path.of("src/test/java/dev/agenttools");
    private static final String EMULATOR = "dev.agenttools.emulator";

    @Test
    void theEmulatorImportsNothingOfOurs() throws IOException {
        // The emulator must not share code with the clients it tests, or it would agree with their mistakes. Its
        // subpackages are walked too (importsOf reads the whole folder).
        assertThat(importsOf("emulator")).noneMatch(i -> i.startsWith("dev.agenttools.") && !i.startsWith("dev.agenttools.emulator."));
    }

    /** The emulator's edge: all that other packages may use of it. */
    private static final Set<String> EMULATOR_EDGE = Set.of("Emulator", "EmulatorConfig", "EmulatorCounters");

    @Test
    void outsideTheEmulatorOnlyItsThreeEdgeClassesAreUsed() throws IOException {
        for (Path file : javaFiles(MAIN)) {
            if (!file.startsWith(MAIN.resolve("emulator"))) {
                assertThat(emulatorTypesIn(file)).as("%s uses of the emulator", file).isSubsetOf(EMULATOR_EDGE);
            }
        }
        // Tests elsewhere may also register the emulator's JUnit extension (a test helper, not main code).
        Set<String> forTests = new TreeSet<>(EMULATOR_EDGE);
        forTests.add("Emulators");
        for (Path file : javaFiles(TEST)) {
            if (!file.startsWith(TEST.resolve("emulator"))) {
                assertThat(emulatorTypesIn(file)).as("%s uses of the emulator", file).isSubsetOf(forTests);
            }
        }
    }

    @Test
    void theEmulatorsPackagesImportOneAnotherOneWay() throws IOException {
        Map<String, Set<String>> uses = emulatorPackageGraph();
        assertThat(cycleIn(uses)).as("a cycle between the emulator's packages").isEmpty();
        // The layers, lowest first: what a call is made of; the APIs; the front that routes to them; the edge.
        assertThat(uses).containsOnlyKeys(EMULATOR, EMULATOR + ".api", EMULATOR + ".gmail", EMULATOR + ".calendar",
                EMULATOR + ".oauth", EMULATOR + ".http");
        assertThat(uses.get(EMULATOR + ".api")).isEmpty();
        for (String api : List.of("gmail", "calendar", "oauth")) {
            assertThat(uses.get(EMULATOR + "." + api)).as(api).isSubsetOf(EMULATOR + ".api");
        }
        assertThat(uses.get(EMULATOR + ".http")).isSubsetOf(EMULATOR + ".api", EMULATOR + ".gmail",
                EMULATOR + ".calendar", EMULATOR + ".oauth");
    }

    @Test
    void eachEmulatorPackageMakesPublicOnlyTheTypesListedHere() throws IOException {
        // Widening a package's public surface is a deliberate change: add the type here, and say why in its Javadoc.
        Map<String, Set<String>> expected = Map.of(
                "", EMULATOR_EDGE,
                "api", Set.of("ApiError", "ApiRequest", "ApiResponse", "Counters", "ErrorBody", "Faults", "FieldMask",
                        "Json", "Params", "QuotaBucket", "Route", "RouteTable"),
                "http", Set.of("CallGate", "HttpFront", "JsonErrorHandler", "LatencyModel", "RequestBody", "Users"),
                "gmail", Set.of("GmailApi", "Mailbox", "MailboxSource"),
                "calendar", Set.of("CalendarApi", "CalendarSet"),
                "oauth", Set.of("OAuthServer"));
        Map<String, Set<String>> actual = new TreeMap<>();
        for (Path file : javaFiles(MAIN.resolve("emulator"))) {
            String pkg = MAIN.resolve("emulator").relativize(file.getParent()).toString().replace('/', '.');
            Set<String> types = actual.computeIfAbsent(pkg, k -> new TreeSet<>());
            Matcher m = PUBLIC_TOP_LEVEL.matcher(Files.readString(file));
            while (m.find()) {
                types.add(m.group(1));
            }
        }
        assertThat(actual).isEqualTo(expected);
    }

    /**
     * The published API: the front door, the settings records its builder takes, the call recorder it records with, and
     * the tool protocol. What a user of the library may compile against; everything else may change.
     */
    private static final Set<String> PUBLISHED = Set.of(
            "Tools", "Settings",
            "google.GoogleSettings", "gmail.GmailSettings", "calendar.CalendarSettings", "mailindex.CacheSettings",
            "auth.AuthSettings", "tracking.TrackingSettings", "habit.HabitSettings", "tracking.CallRecorder",
            "tool.Tool", "tool.ToolSpec", "tool.ToolCall", "tool.ToolResult", "tool.Backend", "tool.ToolException",
            "tool.ToolRegistry", "tool.ToolInterceptor", "tool.CallListener", "tool.CallOutcome", "tool.CallTimeouts",
            "tool.Deadline", "tool.ToolProtocol", "serve.StdioServer", "serve.BoundedLines", "tool.Json", "tool.Params",
            "tool.FanOut", "tool.InternalErrors");
    /**
     * Public only because another of our packages needs them (Java has no narrower way across packages): internal,
     * as each package's package-info says. The command's entry point and the emulator's edge are programs, not API.
     */
    private static final Set<String> INTERNAL = Set.of(
            "cli.Main", "tool.Diagnostics", "tool.Durations", "ServicePacing",
            "google.AccessToken", "google.Account", "google.Answers", "google.BoundedBody", "google.GoogleCalls",
            "google.GoogleConnection", "google.GoogleErrors", "google.Outcome", "google.PageTokens", "google.PerAccount",
            "google.Retry", "google.RootUrl", "google.ApiLimits", "google.Strategy", "google.StreamingJson", "google.UnreadableAnswer",
            "gmail.GmailTools", "gmail.MailText", "calendar.CalendarTools", "habit.HabitTools", "habit.GoogleAccount",
            "mailindex.MailIndex", "mailindex.MailIndexException", "mailindex.MailIndexFiles", "mailindex.OpenIndex",
            "store.PrivateFolder", "store.SqliteStore",
            "auth.AuthException", "auth.SignIn",
            "tracking.CallSink", "tracking.SqliteSink", "tracking.StatsRow", "tracking.Tracking", "tracking.TrackingListener",
            "daemon.DaemonDirectory", "daemon.DaemonServer", "daemon.LauncherRequest",
            "mcp.McpStdioServer", "mcp.McpHttpEndpoint", "mcp.McpCaller", "mcp.BoundedRequestBody", "server.HttpService", "bench.Benchmark",
            "server.oauth.AuthorizationServer", "server.oauth.OAuthSettings", "server.oauth.CheckTiming",
            "server.oauth.RateLimiter", "server.oauth.TrustedProxies",
            "google.PacingShare", "google.PacingStats", "google.TrustedCertificate", "server.DynamoPacingShare", "store.DynamoClients");

    @Test
    void thePublishedApiIsTheFrontDoorItsSettingsAndTheToolProtocol() throws IOException {
        // Widening the API is a deliberate change: add the type to PUBLISHED (or INTERNAL, with its package-info saying so).
        Set<String> published = new TreeSet<>();
        Set<String> internal = new TreeSet<>();
        for (Path file : javaFiles(MAIN)) {
            String pkg = MAIN.relativize(file.getParent()).toString().replace('/', '.');
            if (pkg.equals("emulator") || pkg.startsWith("emulator.")) {
                continue; // its own edge, held above
            }
            Matcher m = PUBLIC_TOP_LEVEL.matcher(Files.readString(file));
            while (m.find()) {
                String name = pkg.isEmpty() ? m.group(1) : pkg + "." + m.group(1);
                (PUBLISHED.contains(name) ? published : internal).add(name);
            }
        }
        assertThat(published).containsExactlyInAnyOrderElementsOf(PUBLISHED);
        assertThat(PUBLISHED).as("the published API stays small").hasSizeLessThanOrEqualTo(30);
        assertThat(internal).containsExactlyInAnyOrderElementsOf(INTERNAL);
    }

    @Test
    void everyInternalPackageSaysSoAndThePublishedOnesSayWhatTheyAre() throws IOException {
        List<Path> infos;
        try (Stream<Path> files = Files.walk(MAIN)) {
            infos = files.filter(f -> f.endsWith("package-info.java")).toList();
        }
        for (Path file : infos) {
            String pkg = MAIN.relativize(file.getParent()).toString();
            String doc = Files.readString(file);
            if (pkg.isEmpty() || pkg.equals("tool") || pkg.equals("serve")) {
                assertThat(doc).as(pkg).contains("published API");
            } else {
                assertThat(doc).as(pkg).containsIgnoringCase("internal");
            }
        }
        try (Stream<Path> dirs = Files.walk(MAIN)) {
            assertThat(dirs.filter(Files::isDirectory).filter(d -> !Files.exists(d.resolve("package-info.java"))).toList())
                    .as("packages without a package-info").isEmpty();
        }
    }

    private static final Pattern PUBLIC_TOP_LEVEL = Pattern.compile(
            "^public\\s+(?:(?:final|abstract|sealed|non-sealed|static|strictfp)\\s+)*(?:class|record|enum|interface|@interface)\\s+(\\w+)",
            Pattern.MULTILINE);

    /** The emulator's types that {@code file} names (their simple names; a nested type counts as its outer one). */
    private static Set<String> emulatorTypesIn(Path file) throws IOException {
        Set<String> types = new TreeSet<>();
        for (String ref : Files.readAllLines(file).stream().flatMap(ArchitectureTest::referencesIn).toList()) {
            if (ref.startsWith(EMULATOR + ".")) {
                String rest = ref.substring(EMULATOR.length() + 1);
                types.add(Character.isUpperCase(rest.charAt(0)) ? rest.split("\\.")[0] : rest);
            }
        }
        return types;
    }

    /** For each emulator package, the other emulator packages its files import or name. */
    private static Map<String, Set<String>> emulatorPackageGraph() throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        for (Path file : javaFiles(MAIN.resolve("emulator"))) {
            String pkg = "dev.agenttools." + MAIN.relativize(file.getParent()).toString().replace('/', '.');
            Set<String> targets = uses.computeIfAbsent(pkg, k -> new TreeSet<>());
            for (String ref : Files.readAllLines(file).stream().flatMap(ArchitectureTest::referencesIn).toList()) {
                String target = packageOf(ref);
                if (target.startsWith(EMULATOR) && !target.equals(pkg)) {
                    targets.add(target);
                }
            }
        }
        return uses;
    }

    /** The package part of a reference: its segments before the first type name (or wildcard). */
    private static String packageOf(String reference) {
        List<String> segments = new ArrayList<>();
        for (String s : reference.split("\\.")) {
            if (s.equals("*") || Character.isUpperCase(s.charAt(0))) {
                break;
            }
            segments.add(s);
        }
        return String.join(".", segments);
    }

    /** A cycle in the graph as the packages along it, or empty when there is none. */
    private static List<String> cycleIn(Map<String, Set<String>> graph) {
        Map<String, Integer> state = new HashMap<>(); // 1: on the current path, 2: done
        Deque<String> path = new ArrayDeque<>();
        for (String start : graph.keySet()) {
            List<String> cycle = visit(start, graph, state, path);
            if (!cycle.isEmpty()) {
                return cycle;
            }
        }
        return List.of();
    }

    private static List<String> visit(String node, Map<String, Set<String>> graph, Map<String, Integer> state,
                                      Deque<String> path) {
        Integer s = state.get(node);
        if (s != null && s == 2) {
            return List.of();
        }
        if (s != null) {
            List<String> onPath = new ArrayList<>(path);
            Collections.reverse(onPath);
            List<String> cycle = new ArrayList<>(onPath.subList(onPath.indexOf(node), onPath.size()));
            cycle.add(node);
            return cycle;
        }
        state.put(node, 1);
        path.push(node);
        for (String next : graph.getOrDefault(node, Set.of())) {
            List<String> cycle = visit(next, graph, state, path);
            if (!cycle.isEmpty()) {
                return cycle;
            }
        }
        path.pop();
        state.put(node, 2);
        return List.of();
    }

    private static List<Path> javaFiles(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.toString().endsWith(".java") && !f.endsWith("package-info.java")).sorted().toList();
        }
    }

    /**
     * What the published API's public members take and give is published too, or the JDK's, or Jackson's (the tool
     * protocol speaks JSON trees): a user never has to name an internal type to call it, and no internal type is
     * reachable through it (the Tools.Builder once took the pacing's internal share and stats types).
     */
    @Test
    void thePublishedApiNamesOnlyPublishedJdkOrJacksonTypes() throws ClassNotFoundException {
        Set<String> published = new TreeSet<>();
        for (String name : PUBLISHED) {
            published.add("dev.agenttools." + name);
        }
        List<String> leaks = new ArrayList<>();
        Deque<Class<?>> types = new ArrayDeque<>();
        for (String name : published) {
            types.add(Class.forName(name));
        }
        Set<Class<?>> seen = new HashSet<>();
        while (!types.isEmpty()) {
            Class<?> type = types.pop();
            if (!seen.add(type)) {
                continue;
            }
            for (Class<?> nested : type.getDeclaredClasses()) {
                if (Modifier.isPublic(nested.getModifiers())) {
                    types.add(nested); // a published type's public nested types are published with it
                }
            }
            List<Type> used = new ArrayList<>();
            for (var m : type.getDeclaredMethods()) {
                if (Modifier.isPublic(m.getModifiers()) && !m.isSynthetic()) {
                    used.add(m.getGenericReturnType());
                    used.addAll(List.of(m.getGenericParameterTypes()));
                    used.addAll(List.of(m.getGenericExceptionTypes()));
                }
            }
            for (var c : type.getDeclaredConstructors()) {
                if (Modifier.isPublic(c.getModifiers())) {
                    used.addAll(List.of(c.getGenericParameterTypes()));
                }
            }
            for (var f : type.getDeclaredFields()) {
                if (Modifier.isPublic(f.getModifiers())) {
                    used.add(f.getGenericType());
                }
            }
            for (var t : used) {
                for (Class<?> c : rawTypes(t)) {
                    Class<?> outer = c;
                    while (outer.getEnclosingClass() != null) {
                        outer = outer.getEnclosingClass();
                    }
                    String n = outer.getName();
                    boolean ok = c.isPrimitive() || n.startsWith("java.") || n.startsWith("javax.") || n.startsWith("com.fasterxml.jackson.")
                            || published.contains(n);
                    if (!ok) {
                        leaks.add(type.getName() + " names " + c.getName());
                    }
                }
            }
        }
        assertThat(leaks).as("internal types named by the published API").isEmpty();
    }

    /** The classes a generic type mentions: itself, its arguments, bounds and array components. */
    private static List<Class<?>> rawTypes(Type t) {
        List<Class<?>> out = new ArrayList<>();
        switch (t) {
            case Class<?> c -> out.add(c.isArray() ? c.componentType() : c);
            case ParameterizedType p -> {
                out.addAll(rawTypes(p.getRawType()));
                for (var a : p.getActualTypeArguments()) {
                    out.addAll(rawTypes(a));
                }
            }
            case GenericArrayType a -> out.addAll(rawTypes(a.getGenericComponentType()));
            case WildcardType w -> {
                for (var b : w.getUpperBounds()) {
                    out.addAll(rawTypes(b));
                }
                for (var b : w.getLowerBounds()) {
                    out.addAll(rawTypes(b));
                }
            }
            default -> {
                // a type variable: its bounds are the declaring type's business
            }
        }
        return out;
    }

    @Test
    void dependenciesPointOneWay() throws IOException {
        assertImportsOnly("tool");
        assertImportsOnly("store"); // the SQLite files' plumbing: mailindex and tracking share it
        assertImportsOnly("google", "tool");
        assertImportsOnly("gmail", "tool", "google", "mailindex");
        assertImportsOnly("mailindex", "tool", "store"); // the local index of message summaries: nothing of Gmail
        assertImportsOnly("calendar", "tool", "google");
        assertImportsOnly("habit", "tool", "store"); // whose Google account a call is comes from the front door (GoogleAccount)
        assertImportsOnly("serve", "tool"); // the JSON-lines server over the protocol
        assertImportsOnly("mcp", "tool", "serve"); // its stdio transport reads lines as serve does
        // the HTTP service: cli gives it the registry, and the Google APIs' pacing counts its metrics show; its MCP
        // authorization (server.oauth) keeps clients, token digests and Google refresh tokens in a SQLite or DynamoDB store
        assertImportsOnly("server", "tool", "mcp", "google", "store");
        assertImportsOnly("tracking", "tool", "store");
        assertImportsOnly("auth");
        assertImportsOnly("daemon"); // the launcher's wire and the resident server's socket; cli gives it the tools
        // bench reads two families' constants: the field masks its bare client must send (so the server does the same
        // work as for the tools) and the HTML converter its decoding figure times; the front door does not carry them;
        // and server's token check, which its row times (server.oauth.CheckTiming); and the Habit tools' settings, to
        // point its habit rows at a store file of their own (HabitBench); and how the batch strategy cuts its chunks, for
        // its bounds (Bounds)
        assertImportsOnly("bench", "tool", "emulator", "Tools", "Settings", "tracking", "gmail", "calendar", "server", "habit",
                "google");
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
        List<String> all = new ArrayList<>(List.of(rest));
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
    private static final Pattern QUALIFIED = Pattern.compile("\\bdev\\.agenttools\\.(?:[a-z]\\w*\\.)+[A-Z]\\w*");
    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");

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
        return QUALIFIED.matcher(code).results().map(MatchResult::group);
    }

    /** Our dependencies from {@code pkg}: its imports and the fully qualified names its code uses. */
    private static List<String> importsOf(String pkg) throws IOException {
        try (Stream<Path> files = Files.walk(MAIN.resolve(pkg))) {
            return files.filter(f -> f.toString().endsWith(".java")).flatMap(f -> {
                try {
                    return Files.readAllLines(f).stream();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).flatMap(ArchitectureTest::referencesIn).toList();
        }
    }
}
