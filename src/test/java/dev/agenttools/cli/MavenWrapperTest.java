package dev.agenttools.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26, item 8: the first thing a new user reads is ours. Maven 3.9.11 on JDK 25 starts by printing four
 * {@code WARNING: A terminally deprecated method in sun.misc.Unsafe has been called ...} lines (Guice 5 defines
 * its classes through {@code sun.misc.Unsafe}); they led every {@code ./mvnw} run and every build log the launcher
 * shows when a build fails. {@code .mvn/jvm.config} sets {@code guice_custom_class_loading=CHILD}, the fix Maven
 * 3.9.12 makes in its own start-up (apache/maven#10312). This runs the project's own wrapper, as a user would, on the
 * cheapest goal that starts Maven's Guice container.
 */
@Tag("process")
class MavenWrapperTest {
    @Test
    void mavenPrintsNothingOfItsOwnOnAQuietBuild(@TempDir Path buildDirectory) throws Exception {
        // -q: Maven's own output is errors only, as in the launcher's build; so anything printed is noise
        ProcessBuilder b = new ProcessBuilder(Path.of("mvnw").toAbsolutePath().toString(), "-B", "-q", "-o",
                "-Dagent-tools.build.directory=" + buildDirectory, "validate").redirectErrorStream(true);
        // the developer's own Maven settings would change what is checked (a MAVEN_OPTS could set the same property)
        b.environment().remove("MAVEN_OPTS");
        b.environment().remove("MAVEN_ARGS");
        Path output = buildDirectory.resolve("mvnw.out");
        Process maven = b.redirectOutput(output.toFile()).start();
        maven.getOutputStream().close(); // nothing to read: Maven never asks in batch mode
        boolean exited = maven.waitFor(2, TimeUnit.MINUTES); // ~2 s here; the machine may be busy
        if (!exited) {
            maven.destroyForcibly();
        }
        assertThat(Files.readString(output)).as("what ./mvnw -q validate printed").isEmpty();
        assertThat(exited).as("Maven exited within 2 minutes").isTrue();
        assertThat(maven.exitValue()).isZero();
    }
}
