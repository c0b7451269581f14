package dev.agenttools.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class SourceWatchTest {
    @TempDir
    Path checkout;

    @Test
    void seesASourceOrThePomChangedAfterTheJarWasBuilt() throws Exception {
        Path jar = Files.createDirectories(checkout.resolve("target")).resolve("agent-tools.jar");
        Path source = Files.createDirectories(checkout.resolve("src/main/java/dev")).resolve("A.java");
        Path pom = checkout.resolve("pom.xml");
        FileTime old = FileTime.from(Instant.now().minusSeconds(60));
        for (Path p : new Path[] {source, pom, jar}) {
            Files.writeString(p, "x");
        }
        for (Path p : new Path[] {source, source.getParent(), checkout.resolve("src/main/java"), checkout.resolve("src/main"), pom}) {
            Files.setLastModifiedTime(p, old);
        }
        FileTime built = Files.getLastModifiedTime(jar);
        SourceWatch watch = SourceWatch.of(jar);
        assertThat(watch.newerThan(built)).isFalse();

        Files.setLastModifiedTime(source, FileTime.from(Instant.now().plusSeconds(1)));
        assertThat(watch.newerThan(built)).isTrue();
        Files.setLastModifiedTime(source, old);
        Files.setLastModifiedTime(pom, FileTime.from(Instant.now().plusSeconds(1)));
        assertThat(watch.newerThan(built)).isTrue();
    }

    @Test
    void findsTheCheckoutOfTheLaunchersOwnBuildTwoFoldersUp() throws Exception {
        Path jar = Files.createDirectories(checkout.resolve("target/launcher")).resolve("agent-tools.jar");
        Path source = Files.createDirectories(checkout.resolve("src/main/java")).resolve("A.java");
        Files.writeString(checkout.resolve("pom.xml"), "x");
        Files.writeString(jar, "x");
        Files.writeString(source, "x");
        FileTime built = FileTime.from(Instant.now().minusSeconds(60));
        assertThat(SourceWatch.of(jar).newerThan(built)).isTrue();
    }

    @Test
    void aJarOutsideACheckoutHasNothingToWatch() throws Exception {
        Path jar = Files.writeString(checkout.resolve("agent-tools.jar"), "x");
        assertThat(SourceWatch.of(jar).newerThan(FileTime.fromMillis(0))).isFalse();
    }
}
