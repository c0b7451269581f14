package dev.agenttools.emulator.gmail;

import dev.agenttools.emulator.api.ApiError;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One user's mail: messages, threads, labels and the history of changes. Thread-safe: reads share a read
 * lock, changes take the write lock and are recorded in the history log.
 */
public final class Mailbox {
    /** Newest first, as messages.list orders them; ties broken by id so paging is stable. */
    static final Comparator<StoredMessage> NEWEST_FIRST = Comparator
            .comparingLong((StoredMessage m) -> m.internalDate).reversed()
            .thenComparing(Comparator.comparingLong((StoredMessage m) -> m.id).reversed());
    /** How many of the newest loaded messages keep their "messageAdded" history; older history has expired. */
    static final int RETAINED_LOAD_HISTORY = 100;
    private static final long FIRST_HISTORY_ID = 100_000;
    /** 2^40 ms, 2004-11-03T19:53:47.776Z: ids of mail that arrived earlier all take this time. */
    static final long MIN_ID_TIME = 1L << 40;
    /** 2^43 - 2^12 ms, 2248-09-26T15:10:18.112Z: ids of mail that arrived later all take this time. */
    static final long MAX_ID_TIME = (1L << 43) - (1L << 12);

    public final String email;
    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    private final Map<Long, StoredMessage> byId = new HashMap<>();
    private final TreeSet<StoredMessage> newestFirst = new TreeSet<>(NEWEST_FIRST);
    private final Map<Long, List<StoredMessage>> threads = new HashMap<>();
    private final LabelCatalog labels;
    private final List<HistoryRecord> history = new ArrayList<>();
    private long lastHistoryId = FIRST_HISTORY_ID;
    private long oldestValidHistoryId;

    private Mailbox(String email, LabelCatalog labels) {
        this.email = email;
        this.labels = labels;
    }

    /** Builds a mailbox from messages in any order; ids, threads and history follow arrival time. */
    static Mailbox load(String email, List<MailInput> inputs) {
        return load(email, inputs, MimeParser::parse, System.err::println);
    }

    /**
     * As {@link #load(String, List)}, with the MIME parse and the warning sink given: the tests parse a seeded mailbox
     * once per JVM and give every emulator its own mailbox over those parses (parsed messages are immutable; labels
     * live here). A message that cannot be parsed is left out, with one line to {@code warnings} naming its origin.
     */
    static Mailbox load(String email, List<MailInput> inputs, Function<byte[], ParsedMessage> parser,
                        Consumer<String> warnings) {
        return load(email, inputs, parser, warnings, 0);
    }

    /**
     * As {@link #load(String, List, Function, Consumer)}, with ids that carry {@code owner}, a further user's number
     * (0: none, the first user's ids as they always were; see {@link #nextId(long, int, long, int)}).
     */
    static Mailbox load(String email, List<MailInput> inputs, Function<byte[], ParsedMessage> parser,
                        Consumer<String> warnings, int owner) {
        Mailbox box = new Mailbox(email, new LabelCatalog());
        List<MailInput> byArrival = new ArrayList<>(inputs);
        byArrival.sort(Comparator.comparingLong(MailInput::internalDate));
        Map<String, Long> threadByKey = new HashMap<>();
        Map<String, Long> threadByMessageId = new HashMap<>();
        int sequence = 0;
        long id = 0;
        int retainFrom = Math.max(0, byArrival.size() - RETAINED_LOAD_HISTORY);
        for (int i = 0; i < byArrival.size(); i++) {
            MailInput in = byArrival.get(i);
            ParsedMessage parsed;
            try {
                parsed = parser.apply(in.raw());
            } catch (RuntimeException | StackOverflowError | ServiceConfigurationError e) {
                // Failures one message's bytes can cause; nothing JVM-wide (OutOfMemoryError, a broken class
                // path's LinkageError) is caught here, as skipping would only hide it behind every later message.
                warnings.accept("emulator: skipped " + in.origin() + ": " + reason(e));
                continue;
            }
            sequence++;
            id = nextId(in.internalDate(), sequence, id, owner);
            long threadId = box.threadFor(in, parsed, id, threadByKey, threadByMessageId);
            Set<String> labelIds = box.resolveLabels(in.labelIds());
            // History ids increase but are not contiguous, as in Gmail.
            box.lastHistoryId += 1 + (sequence % 5);
            StoredMessage message = new StoredMessage(id, threadId, in.internalDate(), in.raw(), parsed, labelIds,
                    box.lastHistoryId);
            box.insert(message);
            if (i >= retainFrom) {
                if (box.oldestValidHistoryId == 0) {
                    box.oldestValidHistoryId = box.lastHistoryId - 1;
                }
                box.history.add(new HistoryRecord(box.lastHistoryId, "messageAdded", id, threadId, List.of(),
                        List.copyOf(labelIds)));
            }
        }
        if (box.oldestValidHistoryId == 0) {
            box.oldestValidHistoryId = box.lastHistoryId;
        }
        return box;
    }

    /**
     * The id of the next message in arrival order. Gmail's ids are 16 hex digits that grow with time; here the
     * arrival time in ms, shifted left 20 bits, with a counter in the low 20 bits. The time is clamped into
     * [{@link #MIN_ID_TIME}, {@link #MAX_ID_TIME}], so every id lies in [2^60, 2^63): 16 digits, positive as a signed
     * long, whatever the message's date (1901, 3609, or a clock at zero). Each id is also above the one before, so
     * ids are unique and in arrival order even where clamping or more than 2^20 messages would make two equal;
     * the top clamp leaves room for 2^32 ids above it, more than a list can hold.
     */
    static long nextId(long internalDate, int sequence, long previousId) {
        return nextId(internalDate, sequence, previousId, 0);
    }

    /**
     * As {@link #nextId(long, int, long)}; with an {@code owner} (a further user's number, not 0) its low 8 bits take
     * the top of the low 20 and the counter the 12 below: two users' messages that arrived in the same millisecond
     * still get different ids (seeded users' dates differ already; this makes a shared id need both to coincide).
     */
    static long nextId(long internalDate, int sequence, long previousId, int owner) {
        long time = Math.clamp(internalDate, MIN_ID_TIME, MAX_ID_TIME);
        long low = owner == 0 ? sequence & 0xFFFFF : (owner & 0xFFL) << 12 | (sequence & 0xFFF);
        return Math.max((time << 20) | low, previousId + 1);
    }

    /** One line for the skip warning: what went wrong, with any line breaks flattened. */
    private static String reason(Throwable e) {
        if (e instanceof StackOverflowError) {
            return "nested too deeply to parse (stack overflow)";
        }
        String message = e.getMessage() == null ? "" : e.getMessage().strip().replaceAll("\\s*\\R\\s*", " ");
        if (e instanceof IllegalArgumentException && !message.isEmpty()) {
            return message; // MimeParser's own wording ("unreadable message: ...")
        }
        return message.isEmpty() ? e.getClass().getName() : e.getClass().getName() + ": " + message;
    }

    private long threadFor(MailInput in, ParsedMessage parsed, long id, Map<String, Long> byKey,
                           Map<String, Long> byMessageId) {
        Long thread = null;
        if (in.threadKey() != null) {
            thread = byKey.get(in.threadKey());
        } else {
            for (String ref : (parsed.inReplyTo() + " " + parsed.references()).split("\\s+")) {
                if (!ref.isBlank() && byMessageId.containsKey(ref.strip())) {
                    thread = byMessageId.get(ref.strip());
                    break;
                }
            }
        }
        if (thread == null) {
            thread = id;
        }
        if (in.threadKey() != null) {
            byKey.putIfAbsent(in.threadKey(), thread);
        }
        if (!parsed.rfc822MessageId().isBlank()) {
            byMessageId.putIfAbsent(parsed.rfc822MessageId().strip(), thread);
        }
        return thread;
    }

    private Set<String> resolveLabels(Set<String> wanted) {
        Set<String> ids = new LinkedHashSet<>();
        for (String w : wanted) {
            ids.add(w.startsWith("user:") ? labels.userLabel(w.substring(5)).id() : w);
        }
        return ids;
    }

    private <T> T read(Supplier<T> query) {
        lock.readLock().lock();
        try {
            return query.get();
        } finally {
            lock.readLock().unlock();
        }
    }

    private void insert(StoredMessage m) {
        byId.put(m.id, m);
        newestFirst.add(m);
        List<StoredMessage> thread = threads.computeIfAbsent(m.threadId, k -> new ArrayList<>());
        thread.add(m);
        thread.sort(Comparator.comparingLong((StoredMessage x) -> x.internalDate).thenComparingLong(x -> x.id));
    }

    /** Messages that pass the filter, newest first. */
    List<StoredMessage> messages(Predicate<StoredMessage> filter) {
        lock.readLock().lock();
        try {
            List<StoredMessage> out = new ArrayList<>();
            for (StoredMessage m : newestFirst) {
                if (filter.test(m)) {
                    out.add(m);
                }
            }
            return out;
        } finally {
            lock.readLock().unlock();
        }
    }

    Optional<StoredMessage> message(long id) {
        return read(() -> Optional.ofNullable(byId.get(id)));
    }

    /** The thread's messages, oldest first, or empty when there is no such thread. */
    List<StoredMessage> thread(long threadId) {
        return read(() -> List.copyOf(threads.getOrDefault(threadId, List.of())));
    }

    public int size() {
        return read(() -> byId.size());
    }

    public int threadCount() {
        return read(() -> threads.size());
    }

    long historyId() {
        return read(() -> lastHistoryId);
    }

    List<Label> labels() {
        return read(() -> labels.all());
    }

    Optional<Label> label(String id) {
        return read(() -> labels.byId(id));
    }

    List<String> labelIdsForSearchName(String name) {
        return read(() -> labels.idsForSearchName(name));
    }

    /**
     * New mail arriving (messages.insert): parsed, given the next id and its own thread, labelled, and recorded in the
     * history as messageAdded. An unreadable message is 400 "Invalid raw", as Gmail answers bytes it cannot read.
     */
    StoredMessage deliver(byte[] raw, List<String> labelIds, long internalDate) {
        ParsedMessage parsed;
        try {
            parsed = MimeParser.parse(raw);
        } catch (RuntimeException e) {
            throw ApiError.badRequest("raw", "Invalid raw: " + e.getMessage());
        }
        lock.writeLock().lock();
        try {
            for (String l : labelIds) {
                if (labels.byId(l).isEmpty()) {
                    throw ApiError.badRequest("labelIds", "Invalid label: " + l);
                }
            }
            long previous = byId.keySet().stream().mapToLong(Long::longValue).max().orElse(0);
            long id = nextId(internalDate, (int) (previous & 0xFFFFF) + 1, previous);
            lastHistoryId++;
            StoredMessage message = new StoredMessage(id, id, internalDate, raw, parsed, new LinkedHashSet<>(labelIds),
                    lastHistoryId);
            insert(message);
            history.add(new HistoryRecord(lastHistoryId, "messageAdded", id, id, List.of(), List.copyOf(labelIds)));
            return message;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Adds and removes labels; unknown labels are 400 "Invalid label". Records one history entry per direction. */
    StoredMessage modify(long id, List<String> add, List<String> remove) {
        lock.writeLock().lock();
        try {
            StoredMessage m = byId.get(id);
            if (m == null) {
                throw ApiError.notFound();
            }
            for (String l : concat(add, remove)) {
                if (labels.byId(l).isEmpty()) {
                    throw ApiError.badRequest("labelIds", "Invalid label: " + l);
                }
            }
            Set<String> now = new LinkedHashSet<>(m.labels());
            List<String> added = add.stream().filter(now::add).distinct().toList();
            List<String> removed = remove.stream().filter(now::remove).distinct().toList();
            if (added.isEmpty() && removed.isEmpty()) {
                return m;
            }
            lastHistoryId++;
            m.update(now, lastHistoryId);
            if (!added.isEmpty()) {
                history.add(new HistoryRecord(lastHistoryId, "labelAdded", id, m.threadId, added, List.copyOf(now)));
            }
            if (!removed.isEmpty()) {
                history.add(new HistoryRecord(lastHistoryId, "labelRemoved", id, m.threadId, removed, List.copyOf(now)));
            }
            return m;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Deletes a message for good (not to the trash); true when it existed. */
    boolean delete(long id) {
        lock.writeLock().lock();
        try {
            StoredMessage m = byId.remove(id);
            if (m == null) {
                return false;
            }
            newestFirst.remove(m);
            List<StoredMessage> thread = threads.get(m.threadId);
            thread.remove(m);
            if (thread.isEmpty()) {
                threads.remove(m.threadId);
            }
            lastHistoryId++;
            history.add(new HistoryRecord(lastHistoryId, "messageDeleted", id, m.threadId, List.of(),
                    List.copyOf(m.labels())));
            return true;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * History records after {@code startHistoryId}, oldest first.
     *
     * @throws ApiError 404 when the start id is older than the retained history (the client must fully sync)
     */
    List<HistoryRecord> historySince(long startHistoryId) {
        lock.readLock().lock();
        try {
            if (startHistoryId < oldestValidHistoryId) {
                throw ApiError.notFound("Requested entity was not found.");
            }
            return history.stream().filter(h -> h.id() > startHistoryId).toList();
        } finally {
            lock.readLock().unlock();
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
