package dev.agenttools.habit;

import dev.agenttools.tool.ToolException;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every {@link HabitStore} promises (its Javadoc), run against each kind: SQLite ({@link SqliteHabitStoreTest}) and
 * DynamoDB on dynalite ({@link DynamoHabitStoreTest}). Two stores on one place stand for two instances.
 */
abstract class HabitStoreContract {
    static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    static final ZoneId PARIS = ZoneId.of("Europe/Paris");
    static final LocalDate DAY = LocalDate.of(2026, 12, 1);

    HabitStore store;
    /** Another instance's store on the same place. */
    HabitStore other;

    /** A new, empty place; {@link #open} opens stores on it. */
    abstract void newPlace() throws Exception;

    abstract HabitStore open() throws Exception;

    @BeforeEach
    void openBoth() throws Exception {
        newPlace();
        store = open();
        other = open();
    }

    @AfterEach
    void closeBoth() {
        store.close();
        other.close();
    }

    static HabitStore.NewHabit habit(String name) {
        return new HabitStore.NewHabit(name, Schedule.DAILY, null, null, PARIS);
    }

    /** Runs both at once (as two instances would), and answers what each returned or threw. */
    static List<Object> together(Callable<?> a, Callable<?> b) throws Exception {
        CyclicBarrier start = new CyclicBarrier(2);
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            List<Future<Object>> both = new ArrayList<>();
            for (Callable<?> c : List.of(a, b)) {
                both.add(threads.submit(() -> {
                    start.await();
                    try {
                        return c.call();
                    } catch (ToolException e) {
                        return e;
                    }
                }));
            }
            List<Object> results = new ArrayList<>();
            for (Future<Object> f : both) {
                results.add(f.get());
            }
            return results;
        }
    }

    @Test
    void aBackendsUserIdAndTheGoogleAccountOfTheSameAddressAreTwoUsers() {
        String google = HabitUsers.ofGoogleAddress("Me@Example.com");
        String backend = HabitUsers.ofUserId("me@example.com");
        assertThat(google).as("keys of tokens' accounts are what stores written before hold").isEqualTo("me@example.com");
        Habit mine = store.create(google, habit("Private"), NOW);
        store.log(google, new HabitLog(mine.id(), DAY, true, null, "n"), NOW);
        assertThat(other.habits(backend, true)).isEmpty();
        assertThat(other.find(backend, "private")).isEmpty();
        assertThat(other.find(backend, mine.id())).isEmpty();
        assertThat(other.logs(backend)).isEmpty();
        Habit theirs = other.create(backend, habit("Private"), NOW); // the same name: another user's
        assertThat(store.habits(google, true)).extracting(Habit::id).containsExactly(mine.id());
        assertThat(store.habits(HabitUsers.ofUserId(" ME@example.COM "), false)).extracting(Habit::id).containsExactly(theirs.id());
    }

    @Test
    void aNameIsFoundWhateverItsCaseOrTheEncodingOfItsAccents() {
        store.create("ann", habit("Caf\u00E9"), NOW);
        assertThat(other.find("ann", "CAFE\u0301")).map(Habit::name).contains("Caf\u00E9");
        assertThatThrownBy(() -> other.create("ann", habit("cafe\u0301"), NOW)).isInstanceOf(ToolException.class)
                .hasMessageContaining("exists already");
    }

    @Test
    void twoInstancesLoggingTheSameDayAtOnceWriteOneRecord() throws Exception {
        Habit h = store.create("ann", habit("Running"), NOW);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        for (HabitStore s : List.of(store, other, store, other)) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    go.await();
                    for (int i = 0; i < 20; i++) {
                        s.log("ann", new HabitLog(h.id(), DAY, true, 5.0 + i, null), NOW);
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
        assertThat(other.logs("ann", h.id())).hasSize(1).first().satisfies(l -> {
            assertThat(l.day()).isEqualTo(DAY);
            assertThat(l.done()).isTrue();
        });
        assertThat(store.logs("ann")).containsOnlyKeys(h.id()).hasEntrySatisfying(h.id(), logs -> assertThat(logs).hasSize(1));
    }

    @Test
    void aLaterLogOfTheDayReplacesTheFirst() {
        Habit h = store.create("ann", habit("Reading"), NOW);
        store.log("ann", new HabitLog(h.id(), DAY, true, 20.0, "chapter 1"), NOW);
        other.log("ann", new HabitLog(h.id(), DAY, false, null, null), NOW);
        assertThat(store.logs("ann", h.id())).containsExactly(new HabitLog(h.id(), DAY, false, null, null));
    }

    @Test
    void refusesTheTwoHundredAndFirstHabitOfAUserButNotAnotherUsers() {
        for (int i = 0; i < HabitStore.MAX_HABITS_PER_USER; i++) {
            (i % 2 == 0 ? store : other).create("ann", habit("habit " + i), NOW);
        }
        assertThatThrownBy(() -> store.create("ann", habit("one more"), NOW)).isInstanceOfSatisfying(ToolException.class, e -> {
            assertThat(e.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
            assertThat(e.getMessage()).contains("200");
        });
        assertThat(store.create("bob", habit("one more"), NOW).user()).isEqualTo("bob");
        assertThat(store.habits("ann", true)).hasSize(HabitStore.MAX_HABITS_PER_USER);
    }

    @Test
    void twoInstancesRacingForTheLastPlaceCreateOneHabit() throws Exception {
        for (int i = 0; i < HabitStore.MAX_HABITS_PER_USER - 1; i++) {
            store.create("ann", habit("habit " + i), NOW);
        }
        List<Object> results = together(() -> store.create("ann", habit("last A"), NOW), () -> other.create("ann", habit("last B"), NOW));
        assertThat(results).filteredOn(Habit.class::isInstance).hasSize(1);
        assertThat(results).filteredOn(ToolException.class::isInstance).singleElement()
                .satisfies(e -> assertThat(((ToolException) e).getMessage()).contains("the most kept per user is 200"));
        assertThat(other.habits("ann", true)).hasSize(HabitStore.MAX_HABITS_PER_USER);
    }

    @Test
    void twoInstancesCreatingOneNameAtOnceCreateOneHabit() throws Exception {
        for (int round = 0; round < 5; round++) {
            String name = "Run " + round;
            List<Object> results = together(() -> store.create("ann", habit(name), NOW),
                    () -> other.create("ann", habit(name.toUpperCase(Locale.ROOT)), NOW));
            assertThat(results).as("round " + round).filteredOn(Habit.class::isInstance).hasSize(1);
            assertThat(results).filteredOn(ToolException.class::isInstance).singleElement()
                    .satisfies(e -> assertThat(((ToolException) e).getMessage()).contains("exists already"));
        }
        assertThat(store.habits("ann", true)).hasSize(5);
    }

    @Test
    void namesAreUniquePerUserWhateverTheirCase() {
        Habit running = store.create("ann", habit("Running"), NOW);
        assertThatThrownBy(() -> other.create("ann", habit("RUNNING"), NOW)).isInstanceOf(ToolException.class)
                .hasMessageContaining("name: a habit named \"Running\" exists already");
        Habit reading = store.create("ann", habit("Reading"), NOW);
        assertThatThrownBy(() -> other.update("ann", reading.id(), rename("running"), NOW)).isInstanceOf(ToolException.class)
                .hasMessageContaining("name: another habit");
        assertThat(store.find("ann", "Reading")).contains(reading);
        assertThat(other.find("ann", "rUnNiNg")).contains(running);
        assertThat(other.find("ann", running.id())).contains(running);
        assertThat(store.create("bob", habit("running"), NOW).name()).isEqualTo("running");
    }

    @Test
    void aRenameFreesTheOldNameAndKeepsTheLogs() {
        Habit running = store.create("ann", habit("Running"), NOW);
        store.log("ann", new HabitLog(running.id(), DAY, true, null, null), NOW);
        Habit jogging = new Habit(running.id(), "ann", "Jogging", Schedule.weekdays(EnumSet.of(DayOfWeek.MONDAY)),
                30.0, "minutes", ZoneId.of("Asia/Tokyo"), false, running.created());
        assertThat(other.update("ann", running.id(), new HabitChange("Jogging", jogging.schedule(), Optional.of(30.0),
                Optional.of("minutes"), jogging.zone(), null), NOW)).isEqualTo(jogging);
        assertThat(store.find("ann", "jogging")).contains(jogging);
        assertThat(store.find("ann", "running")).isEmpty();
        assertThat(store.create("ann", habit("Running"), NOW).name()).isEqualTo("Running");
        assertThat(store.logs("ann", running.id())).hasSize(1);
        Habit cased = new Habit(running.id(), "ann", "JOGGING", jogging.schedule(), 30.0, "minutes", jogging.zone(), false,
                running.created());
        assertThat(store.update("ann", running.id(), rename("JOGGING"), NOW)).isEqualTo(cased);
        assertThat(other.find("ann", running.id())).contains(cased);
    }

    static HabitChange rename(String name) {
        return new HabitChange(name, null, null, null, null, null);
    }

    @Test
    void twoInstancesChangingDifferentThingsOfOneHabitKeepBoth() {
        Habit h = store.create("ann", new HabitStore.NewHabit("Running", Schedule.DAILY, 30.0, "minutes", PARIS), NOW);
        // both read the habit as it was, then each changes one thing: neither undoes the other
        store.update("ann", h.id(), rename("Jogging"), NOW);
        other.update("ann", h.id(), HabitChange.archived(true), NOW);
        store.update("ann", h.id(), new HabitChange(null, null, Optional.empty(), null, ZoneId.of("Asia/Tokyo"), null), NOW);
        other.update("ann", h.id(), new HabitChange(null, Schedule.timesPerWeek(2), null, Optional.of("km"), null, null), NOW);
        Habit expected = new Habit(h.id(), "ann", "Jogging", Schedule.timesPerWeek(2), null, "km", ZoneId.of("Asia/Tokyo"), true,
                h.created());
        assertThat(other.find("ann", h.id())).contains(expected);
        assertThat(store.find("ann", "jogging")).contains(expected);
        assertThat(store.update("ann", h.id(), new HabitChange(null, null, Optional.of(5.0), Optional.empty(), null, false), NOW))
                .isEqualTo(new Habit(h.id(), "ann", "Jogging", Schedule.timesPerWeek(2), 5.0, null, ZoneId.of("Asia/Tokyo"), false,
                        h.created()));
    }

    @Test
    void updatingAHabitThatIsNotThereIsNotFound() {
        assertThatThrownBy(() -> store.update("ann", "hab_0000000000000000", HabitChange.archived(true), NOW))
                .isInstanceOfSatisfying(ToolException.class,
                e -> assertThat(e.kind()).isEqualTo(ToolException.Kind.NOT_FOUND));
        Habit bobs = store.create("bob", habit("Ghost"), NOW);
        assertThatThrownBy(() -> store.update("ann", bobs.id(), HabitChange.archived(true), NOW)).isInstanceOf(ToolException.class);
        assertThat(store.find("bob", bobs.id())).contains(bobs);
    }

    @Test
    void twoUsersNeverSeeEachOthersHabitsOrLogs() {
        Habit ann = store.create("ann", habit("Running"), NOW);
        store.log("ann", new HabitLog(ann.id(), DAY, true, null, null), NOW);
        assertThat(other.habits("bob", true)).isEmpty();
        assertThat(other.find("bob", ann.id())).isEmpty();
        assertThat(other.find("bob", "Running")).isEmpty();
        assertThat(other.logs("bob")).isEmpty();
        assertThat(other.logs("bob", ann.id())).isEmpty();
        assertThat(other.habits("ann", true)).containsExactly(ann);
    }

    @Test
    void aHabitsLogsAreItsOwnOldestDayFirstOverAnyRange() {
        Habit a = store.create("ann", habit("A"), NOW);
        Habit b = store.create("ann", habit("B"), NOW.plusMillis(1));
        List<LocalDate> days = List.of(DAY, DAY.minusDays(400), DAY.minusDays(1), DAY.minusDays(31), DAY.minusYears(2));
        for (LocalDate d : days) {
            store.log("ann", new HabitLog(a.id(), d, true, 1.5, "on " + d), NOW);
        }
        other.log("ann", new HabitLog(b.id(), DAY.minusDays(3), false, null, null), NOW);
        assertThat(other.logs("ann", a.id())).extracting(HabitLog::day)
                .containsExactly(days.stream().sorted().toArray(LocalDate[]::new));
        assertThat(other.logs("ann", a.id())).allSatisfy(l -> assertThat(l.note()).isEqualTo("on " + l.day()));
        assertThat(other.logs("ann", b.id())).containsExactly(new HabitLog(b.id(), DAY.minusDays(3), false, null, null));
        Map<String, List<HabitLog>> all = store.logs("ann");
        assertThat(all).containsOnlyKeys(a.id(), b.id());
        assertThat(all.get(a.id())).isEqualTo(other.logs("ann", a.id()));
    }

    @Test
    void whatAListCountsFromHasEveryDayAndDoneAndTheAmountsFromTheDayAsked() {
        Habit a = store.create("ann", habit("A"), NOW);
        Habit b = store.create("ann", habit("B"), NOW.plusMillis(1));
        store.create("ann", habit("Never logged"), NOW.plusMillis(2));
        for (int i = 0; i < 800; i++) { // more than one DynamoDB page, and two years
            store.log("ann", new HabitLog(a.id(), DAY.minusDays(i), i % 7 != 3, i % 5 == 0 ? null : 0.5 + i, "note " + i), NOW);
        }
        other.log("ann", new HabitLog(b.id(), DAY.minusDays(1), false, 2.0, null), NOW);
        other.log("ann", new HabitLog(b.id(), DAY, true, 1e-3, null), NOW);
        Map<String, List<HabitLog>> counted = other.progressLogs("ann", DAY.minusDays(1));
        Map<String, List<HabitLog>> all = store.logs("ann");
        assertThat(counted).containsOnlyKeys(a.id(), b.id());
        for (String id : all.keySet()) {
            assertThat(counted.get(id)).extracting(HabitLog::habitId, HabitLog::day, HabitLog::done)
                    .containsExactlyInAnyOrderElementsOf(all.get(id).stream()
                            .map(l -> Tuple.tuple(l.habitId(), l.day(), l.done())).toList());
            assertThat(counted.get(id)).filteredOn(l -> !l.day().isBefore(DAY.minusDays(1)))
                    .extracting(HabitLog::day, HabitLog::amount)
                    .containsExactlyInAnyOrderElementsOf(all.get(id).stream().filter(l -> !l.day().isBefore(DAY.minusDays(1)))
                            .map(l -> Tuple.tuple(l.day(), l.amount())).toList());
        }
        assertThat(counted.get(b.id())).hasSize(2);
        assertThat(counted.get(a.id())).hasSize(800).filteredOn(HabitLog::done).hasSize(800 - 800 / 7 - (800 % 7 > 3 ? 1 : 0));
    }

    @Test
    void anArchivedHabitIsKeptWithItsLogsAndCanBeRestored() {
        Habit h = store.create("ann", habit("Piano"), NOW);
        Habit kept = store.create("ann", habit("Walk"), NOW.plusMillis(1));
        store.log("ann", new HabitLog(h.id(), DAY, true, null, "scales"), NOW);
        Habit archived = new Habit(h.id(), "ann", h.name(), h.schedule(), null, null, PARIS, true, h.created());
        assertThat(other.update("ann", h.id(), HabitChange.archived(true), NOW)).isEqualTo(archived);
        assertThat(store.habits("ann", false)).containsExactly(kept);
        assertThat(store.habits("ann", true)).containsExactly(archived, kept);
        assertThat(store.find("ann", "piano")).contains(archived);
        assertThatThrownBy(() -> store.create("ann", habit("PIANO"), NOW)).hasMessageContaining("archived: habit.restore brings it back");
        assertThat(other.update("ann", h.id(), HabitChange.archived(false), NOW)).isEqualTo(h);
        assertThat(store.habits("ann", false)).containsExactly(h, kept);
        assertThat(store.logs("ann", h.id())).containsExactly(new HabitLog(h.id(), DAY, true, null, "scales"));
    }

    @Test
    void whatOneInstanceWritesTheOtherReadsAlike() {
        Habit h = store.create("ann", new HabitStore.NewHabit("Meditate", Schedule.timesPerWeek(3), 0.1, "minutes",
                ZoneId.of("Asia/Tokyo")), NOW);
        Habit w = store.create("ann", new HabitStore.NewHabit("Swim", Schedule.weekdays(EnumSet.of(
                DayOfWeek.MONDAY, DayOfWeek.FRIDAY)), 1_000_000_000.0, null, PARIS), NOW.plusSeconds(1));
        store.log("ann", new HabitLog(h.id(), DAY, true, 12.345678901234567, "calm"), NOW);
        assertThat(other.habits("ann", false)).containsExactly(h, w);
        assertThat(other.logs("ann")).containsEntry(h.id(), List.of(new HabitLog(h.id(), DAY, true, 12.345678901234567, "calm")));
    }
}
