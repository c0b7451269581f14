package dev.agenttools.habit;

import dev.agenttools.tool.ToolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HabitStoreTest {
    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    private static final ZoneId PARIS = ZoneId.of("Europe/Paris");
    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve("data").resolve("habits.db");
    }

    private static HabitStore.NewHabit habit(String name) {
        return new HabitStore.NewHabit(name, Schedule.DAILY, null, null, PARIS);
    }

    @Test
    void twoStoresOnOneFileLoggingTheSameDayWriteOneRecord() throws Exception {
        try (HabitStore a = new HabitStore(file()); HabitStore b = new HabitStore(file())) {
            Habit h = a.create("ann", habit("Running"), NOW);
            LocalDate day = LocalDate.of(2026, 12, 1);
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (HabitStore s : List.of(a, b, a, b)) {
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        go.await();
                        for (int i = 0; i < 20; i++) {
                            s.log("ann", new HabitLog(h.id(), day, true, 5.0 + i, null), NOW);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (RuntimeException e) {
                        failures.add(e);
                    }
                }));
            }
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            assertThat(failures).as("every log of the day written").isEmpty();
            assertThat(b.logs("ann", h.id())).hasSize(1).first().satisfies(l -> {
                assertThat(l.day()).isEqualTo(day);
                assertThat(l.done()).isTrue();
            });
        }
    }

    @Test
    void aLaterLogOfTheDayReplacesTheFirst() {
        try (HabitStore s = new HabitStore(file())) {
            Habit h = s.create("ann", habit("Reading"), NOW);
            LocalDate day = LocalDate.of(2026, 12, 1);
            s.log("ann", new HabitLog(h.id(), day, true, 20.0, "chapter 1"), NOW);
            s.log("ann", new HabitLog(h.id(), day, false, null, null), NOW);
            assertThat(s.logs("ann", h.id())).containsExactly(new HabitLog(h.id(), day, false, null, null));
        }
    }

    @Test
    void refusesTheTwoHundredAndFirstHabitOfAUserButNotAnotherUsers() {
        try (HabitStore s = new HabitStore(file())) {
            for (int i = 0; i < HabitStore.MAX_HABITS_PER_USER; i++) {
                s.create("ann", habit("habit " + i), NOW);
            }
            assertThatThrownBy(() -> s.create("ann", habit("one more"), NOW)).isInstanceOfSatisfying(ToolException.class, e -> {
                assertThat(e.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
                assertThat(e.getMessage()).contains("200");
            });
            assertThat(s.create("bob", habit("one more"), NOW).user()).isEqualTo("bob");
            assertThat(s.habits("ann", true)).hasSize(HabitStore.MAX_HABITS_PER_USER);
        }
    }

    @Test
    void namesAreUniquePerUserWhateverTheirCase() {
        try (HabitStore s = new HabitStore(file())) {
            Habit running = s.create("ann", habit("Running"), NOW);
            assertThatThrownBy(() -> s.create("ann", habit("RUNNING"), NOW)).isInstanceOf(ToolException.class)
                    .hasMessageContaining("name: a habit named \"Running\" exists already");
            Habit reading = s.create("ann", habit("Reading"), NOW);
            assertThatThrownBy(() -> s.update(new Habit(reading.id(), "ann", "running", Schedule.DAILY, null, null, PARIS, false,
                    reading.created()), NOW)).isInstanceOf(ToolException.class).hasMessageContaining("name: another habit");
            assertThat(s.find("ann", "rUnNiNg")).contains(running);
            assertThat(s.find("ann", running.id())).contains(running);
            assertThat(s.create("bob", habit("running"), NOW).name()).isEqualTo("running");
        }
    }

    @Test
    void twoUsersNeverSeeEachOthersHabitsOrLogs() {
        try (HabitStore s = new HabitStore(file())) {
            Habit ann = s.create("ann", habit("Running"), NOW);
            s.log("ann", new HabitLog(ann.id(), LocalDate.of(2026, 12, 1), true, null, null), NOW);
            assertThat(s.habits("bob", true)).isEmpty();
            assertThat(s.find("bob", ann.id())).isEmpty();
            assertThat(s.find("bob", "Running")).isEmpty();
            assertThat(s.logs("bob")).isEmpty();
            assertThat(s.logs("bob", ann.id())).isEmpty();
        }
    }

    @Test
    void theFileIsOwnerOnlyInAPrivateFolder() throws Exception {
        try (HabitStore s = new HabitStore(file())) {
            s.create("ann", habit("Running"), NOW);
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file()))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file().getParent()))).isEqualTo("rwx------");
    }

    @Test
    void aSymbolicLinkWhereTheFileShouldBeIsRefusedAndItsTargetUntouched() throws Exception {
        Files.createDirectories(file().getParent());
        Path target = dir.resolve("elsewhere.txt");
        Files.writeString(target, "keep");
        Files.createSymbolicLink(file(), target);
        assertThatThrownBy(() -> new HabitStore(file())).isInstanceOfSatisfying(ToolException.class,
                e -> assertThat(e.getMessage()).contains("symbolic link"));
        assertThat(Files.readString(target)).isEqualTo("keep");
    }

    @Test
    void aDamagedFileAnswersAnErrorAndIsLeftAsItIs() throws Exception {
        Files.createDirectories(file().getParent(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        byte[] junk = "this is not a SQLite database, and it is long enough to have a header to read.".repeat(20).getBytes();
        Files.write(file(), junk);
        assertThatThrownBy(() -> new HabitStore(file())).isInstanceOfSatisfying(ToolException.class, e -> {
            assertThat(e.kind()).isEqualTo(ToolException.Kind.INTERNAL);
            assertThat(e.getMessage()).contains("damaged").contains(file().getFileName().toString());
        });
        assertThat(Files.readAllBytes(file())).isEqualTo(junk);
    }

    @Test
    void whatWasWrittenIsReadByTheNextProcessAlike() {
        Habit h;
        try (HabitStore s = new HabitStore(file())) {
            h = s.create("ann", new HabitStore.NewHabit("Meditate", Schedule.timesPerWeek(3), 10.0, "minutes",
                    ZoneId.of("Asia/Tokyo")), NOW);
            s.log("ann", new HabitLog(h.id(), LocalDate.of(2026, 12, 1), true, 12.5, "calm"), NOW);
        }
        try (HabitStore s = new HabitStore(file())) {
            assertThat(s.habits("ann", false)).containsExactly(h);
            assertThat(s.logs("ann")).containsEntry(h.id(), List.of(new HabitLog(h.id(), LocalDate.of(2026, 12, 1), true, 12.5, "calm")));
        }
    }
}
