package dev.agenttools.habit;

import dev.agenttools.tool.ToolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.ZoneId;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The store's promises on one SQLite file that two instances (two connections) share, and what only a file has. */
class SqliteHabitStoreTest extends HabitStoreContract {
    @TempDir
    Path dir;
    private int n;
    private Path file;

    @Override
    void newPlace() {
        file = dir.resolve("data-" + n++).resolve("habits.db");
    }

    @Override
    HabitStore open() {
        return new SqliteHabitStore(file);
    }

    @Test
    void aFileWrittenBeforeNamesWereInNfcFindsThemHoweverTheirAccentsAreTyped() throws Exception {
        store.close();
        other.close();
        // as the store wrote it before: a name typed with a combining accent, its key only lowercased
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
             Statement s = c.createStatement()) {
            s.execute("UPDATE habits SET name = name"); // the tables exist (made by the stores just closed)
            s.execute("INSERT INTO habits (user, id, name, name_key, schedule, zone, created_ms, updated_ms) VALUES"
                    + " ('me@example.com', 'hab_00000000000000aa', 'Cafe\u0301', 'cafe\u0301', 'daily', 'UTC', 0, 0),"
                    + " ('local', 'hab_00000000000000bb', 'Tea', 'tea', 'daily', 'UTC', 0, 0)");
            s.execute("PRAGMA user_version = 0");
        }
        store = open();
        other = open();
        assertThat(store.find("me@example.com", "caf\u00E9")).map(Habit::id).contains("hab_00000000000000aa");
        assertThat(other.find("me@example.com", "CAFE\u0301")).map(Habit::id).contains("hab_00000000000000aa");
        assertThat(store.find("local", "TEA")).map(Habit::id).as("the configured user's, as before").contains("hab_00000000000000bb");
        assertThatThrownBy(() -> store.create("me@example.com", habit("Caf\u00E9"), NOW)).hasMessageContaining("exists already");
    }

    @Test
    void theFileIsOwnerOnlyInAPrivateFolder() throws Exception {
        store.create("ann", habit("Running"), NOW);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent()))).isEqualTo("rwx------");
    }

    @Test
    void aSymbolicLinkWhereTheFileShouldBeIsRefusedAndItsTargetUntouched() throws Exception {
        Path link = dir.resolve("linked").resolve("habits.db");
        Files.createDirectories(link.getParent(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path target = dir.resolve("elsewhere.txt");
        Files.writeString(target, "keep");
        Files.createSymbolicLink(link, target);
        assertThatThrownBy(() -> new SqliteHabitStore(link)).isInstanceOfSatisfying(ToolException.class,
                e -> assertThat(e.getMessage()).contains("symbolic link"));
        assertThat(Files.readString(target)).isEqualTo("keep");
    }

    @Test
    void aDamagedFileAnswersAnErrorAndIsLeftAsItIs() throws Exception {
        Path damaged = dir.resolve("damaged").resolve("habits.db");
        Files.createDirectories(damaged.getParent(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        byte[] junk = "this is not a SQLite database, and it is long enough to have a header to read.".repeat(20).getBytes();
        Files.write(damaged, junk);
        assertThatThrownBy(() -> new SqliteHabitStore(damaged)).isInstanceOfSatisfying(ToolException.class, e -> {
            assertThat(e.kind()).isEqualTo(ToolException.Kind.INTERNAL);
            assertThat(e.getMessage()).contains("damaged").contains(damaged.getFileName().toString());
        });
        assertThat(Files.readAllBytes(damaged)).isEqualTo(junk);
    }

    @Test
    void whatWasWrittenIsReadByTheNextProcessAlike() {
        Habit h = store.create("ann", new HabitStore.NewHabit("Meditate", Schedule.timesPerWeek(3), 10.0, "minutes",
                ZoneId.of("Asia/Tokyo")), NOW);
        store.log("ann", new HabitLog(h.id(), DAY, true, 12.5, "calm"), NOW);
        store.close();
        other.close();
        try (HabitStore s = new SqliteHabitStore(file)) {
            assertThat(s.habits("ann", false)).containsExactly(h);
            assertThat(s.logs("ann")).containsEntry(h.id(), List.of(new HabitLog(h.id(), DAY, true, 12.5, "calm")));
        }
    }
}
