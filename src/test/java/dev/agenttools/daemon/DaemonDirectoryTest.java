package dev.agenttools.daemon;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DaemonDirectoryTest {
    @TempDir
    Path temp;

    @Test
    void makesOwnerOnlyFoldersAndAnOwnerOnlyAddressFile() throws IOException {
        Path dir = temp.resolve("agent-tools-1").resolve("checkout");
        try (DaemonDirectory d = DaemonDirectory.lock(dir, Duration.ZERO)) {
            assertThat(d).isNotNull();
            d.publish(4242, "client");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.getParent()))).isEqualTo("rwx------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
            Path address = dir.resolve(DaemonDirectory.ADDRESS_FILE);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(address))).isEqualTo("rw-------");
            assertThat(Files.readString(address)).isEqualTo("4242 client " + ProcessHandle.current().pid() + "\n");
            assertThat(d.lost()).isFalse();
            Files.delete(address);
            assertThat(d.lost()).as("someone removed the address file").isTrue();
        }
    }

    @Test
    void refusesAFolderOthersCanRead() throws IOException {
        Path parent = Files.createDirectory(temp.resolve("agent-tools-2"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path dir = Files.createDirectory(parent.resolve("checkout"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThatThrownBy(() -> DaemonDirectory.lock(dir, Duration.ZERO)).isInstanceOf(IOException.class)
                .hasMessageContaining("has mode rwxr-xr-x; it must be rwx------");
    }

    @Test
    void oneServerPerFolderAndTheNextGetsItOnceTheFirstLetsGo() throws Exception {
        Path dir = temp.resolve("agent-tools-3").resolve("checkout");
        DaemonDirectory first = DaemonDirectory.lock(dir, Duration.ZERO);
        first.publish(1, "b");
        assertThat(DaemonDirectory.lock(dir, Duration.ofMillis(200))).as("while the first holds it").isNull();
        first.close();
        assertThat(dir.resolve(DaemonDirectory.ADDRESS_FILE)).doesNotExist();
        try (DaemonDirectory second = DaemonDirectory.lock(dir, Duration.ZERO)) {
            assertThat(second).isNotNull();
        }
    }
}
