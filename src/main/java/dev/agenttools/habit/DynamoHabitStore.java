package dev.agenttools.habit;

import dev.agenttools.store.DynamoClients;
import dev.agenttools.tool.ToolException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * The {@link HabitStore} in one DynamoDB table that instances on several machines share. Single-table design: partition
 * key {@code pk} = {@code user#} and the SHA-256 of the user id (64 hex digits), sort key {@code sk}; a user's items
 * are all in their partition, so two users never meet in a key:
 *
 * <ul>
 *   <li>{@code sk = habit#<id>}, one per habit: {@code schedule}, {@code target_amount}, {@code target_unit},
 *       {@code zone}, {@code archived}, {@code created_ms}, {@code updated_ms} (not its name: see the next);</li>
 *   <li>{@code sk = habits}, the user's index: {@code names} (a map of habit id to name) and {@code version}. It is the
 *       one item every create and rename writes, with the condition that {@code version} is still the one read
 *       (optimistic locking, retried when another instance wrote between): the count (the map's size) and the
 *       names' uniqueness are checked against what was read and written in one conditional PutItem, so neither can be
 *       raced past. A habit is a user's when the index names its id;</li>
 *   <li>{@code sk = log#<habit id>#<YYYY-MM-DD>}, one per habit and day: {@code done}, {@code amount}, {@code note},
 *       {@code updated_ms}. A log is a PutItem on that key: two instances logging the same day write one item.</li>
 * </ul>
 *
 * <p>Why an index item and not a transaction (a name item and a counter item in a TransactWriteItems): the local
 * DynamoDB the tests run on (dynalite) has no transactions, and one conditional write on one item is as safe and
 * half the write units. A new habit's item is written before the index names it, so that a process dying between
 * the two leaves an item no one sees (not counted, no name taken), never a name without its habit; a create that
 * loses the race deletes its item. A rename writes the index first: one refused changes nothing.
 *
 * <p>Why {@code habit#} and {@code habits}: both begin with {@code habit} and {@code #} sorts before {@code s}, so
 * habit.list reads every habit and the index in ONE Query ({@code begins_with(sk, "habit")}: 200 habits and their
 * index are at most about 130 KB, one page) and every log in one more ({@code begins_with(sk, "log#")}, read in pages
 * of 1 MB, about 7,000 logs without notes each).
 * Reads are strongly consistent: what another instance wrote is seen at once.
 *
 * <p>Why a digest in the key: user ids are addresses, and keys show where attributes do not (CloudWatch Contributor
 * Insights, throttling reports, error messages); the user id itself is stored nowhere. A digest is not a secret (an
 * address can be guessed and hashed), it keeps addresses out of those places, as the shared pacing table does.
 *
 * <p>Failures: a throttled table (after the SDK's retries) is RATE_LIMITED, an unreachable one UPSTREAM, anything else
 * INTERNAL, each naming the table; what was written before stays. Thread-safe (the SDK client is).
 */
final class DynamoHabitStore implements HabitStore {
    private static final String PK = "pk";
    private static final String SK = "sk";
    private static final String INDEX = "habits";
    private static final String HABIT = "habit#";
    private static final String LOG = "log#";
    /** How many times a create or rename reads the index again after another instance wrote it meanwhile. */
    static final int INDEX_ATTEMPTS = 25;
    private static final SecureRandom IDS = new SecureRandom();
    /**
     * The SDK's standard retries (3 attempts, a throttled one after about 1 s, then 2 s, jittered) rather than its
     * default for DynamoDB (9 attempts, up to a minute): a tool call waiting on a throttled table answers within
     * seconds, RATE_LIMITED, and the agent decides whether to try again.
     */
    static final ClientOverrideConfiguration RETRIES = ClientOverrideConfiguration.builder().retryStrategy(RetryMode.STANDARD).build();

    private final DynamoDbClient client;
    private final String table;
    private final int pageItems;

    /** The store on {@code table} through {@code client} (closed with the store); the table must exist. */
    DynamoHabitStore(DynamoDbClient client, String table) {
        this(client, table, 0);
    }

    /** For tests: queries read at most {@code pageItems} items a page (0: as many as DynamoDB sends, up to 1 MB). */
    DynamoHabitStore(DynamoDbClient client, String table, int pageItems) {
        this.client = client;
        this.table = table;
        this.pageItems = pageItems;
    }

    /**
     * The store on the table the settings name: made when missing on a local DynamoDB, required in AWS.
     *
     * @throws ToolException naming the table when it cannot be used (the next call tries again)
     */
    static DynamoHabitStore open(HabitSettings.DynamoTable settings) {
        DynamoDbClient client = DynamoClients.client(settings.endpoint(), settings.region(), RETRIES);
        DynamoHabitStore store = new DynamoHabitStore(client, settings.table());
        try {
            if (settings.endpoint() != null) {
                DynamoClients.ensureTable(client, CreateTableRequest.builder().tableName(settings.table())
                        .attributeDefinitions(attribute(PK), attribute(SK))
                        .keySchema(KeySchemaElement.builder().attributeName(PK).keyType(KeyType.HASH).build(),
                                KeySchemaElement.builder().attributeName(SK).keyType(KeyType.RANGE).build())
                        .billingMode(BillingMode.PAY_PER_REQUEST).build());
            } else {
                client.describeTable(DescribeTableRequest.builder().tableName(settings.table()).build()); // fails now, with its name
            }
        } catch (SdkException e) {
            client.close();
            throw store.failed("open it (" + settings.region() + (settings.endpoint() == null ? "" : ", " + settings.endpoint())
                    + ")", e);
        }
        return store;
    }

    private static AttributeDefinition attribute(String name) {
        return AttributeDefinition.builder().attributeName(name).attributeType(ScalarAttributeType.S).build();
    }

    @Override
    public void close() {
        client.close();
    }

    /** The user's index as read: habit id to name, and the version a write of it must still find. */
    private record Index(Map<String, String> names, long version) {
        static final Index NONE = new Index(Map.of(), 0);

        static Index of(Map<String, AttributeValue> item) {
            if (item == null || item.isEmpty()) {
                return NONE;
            }
            Map<String, String> names = new LinkedHashMap<>();
            item.get("names").m().forEach((id, name) -> names.put(id, name.s()));
            return new Index(names, Long.parseLong(item.get("version").n()));
        }

        /** The id of the habit named {@code name} (any case), other than {@code except}; null when none. */
        String named(String name, String except) {
            String key = Habit.nameKey(name);
            for (var e : names.entrySet()) {
                if (!e.getKey().equals(except) && Habit.nameKey(e.getValue()).equals(key)) {
                    return e.getKey();
                }
            }
            return null;
        }
    }

    @Override
    public Habit create(String user, NewHabit h, Instant now) {
        String id = "hab_" + HexFormat.of().formatHex(randomBytes());
        Habit habit = new Habit(id, user, h.name(), h.schedule(), h.targetAmount(), h.targetUnit(), h.zone(), false,
                Instant.ofEpochMilli(now.toEpochMilli()));
        boolean written = false;
        try {
            for (int attempt = 0; attempt < INDEX_ATTEMPTS; attempt++) {
                Index index = index(user);
                if (index.names().size() >= MAX_HABITS_PER_USER) {
                    throw ToolException.invalidArgument("name: you have " + index.names().size() + " habits, the most kept per user is "
                            + MAX_HABITS_PER_USER + " (archived ones count): archive is not deletion; update an old one instead");
                }
                String same = index.named(h.name(), id);
                if (same != null) {
                    Optional<Habit> other = habit(user, same, index.names().get(same));
                    throw ToolException.invalidArgument("name: a habit named \"" + index.names().get(same) + "\" exists already (id "
                            + same + (other.isPresent() && other.get().archived() ? ", archived: habit.restore brings it back" : "")
                            + "); names are unique per user, whatever their case");
                }
                if (!written) {
                    // before the index names it: a process dying between the two leaves an item no one sees
                    Map<String, AttributeValue> item = habitItem(habit, now);
                    run("create a habit", () -> client.putItem(b -> b.tableName(table).item(item)
                            .conditionExpression("attribute_not_exists(pk)")));
                    written = true;
                }
                Map<String, String> names = new LinkedHashMap<>(index.names());
                names.put(id, h.name());
                if (writeIndex(user, names, index.version(), "create a habit")) {
                    return habit;
                }
                pause(attempt);
            }
            throw busy("create a habit");
        } catch (RuntimeException e) {
            if (written) {
                forget(user, id, e);
            }
            throw e;
        }
    }

    /** Deletes the item of a habit the index never named (its create was refused or failed). */
    private void forget(String user, String id, RuntimeException cause) {
        try {
            run("delete a refused habit's item", () -> client.deleteItem(b -> b.tableName(table).key(key(user, HABIT + id))));
        } catch (RuntimeException e) {
            cause.addSuppressed(e); // an item the index does not name is seen by no one: harmless
        }
    }

    private ToolException busy(String what) {
        return new ToolException(ToolException.Kind.RATE_LIMITED, "habit store: the DynamoDB table " + table + ": cannot " + what
                + ": other instances wrote this user's habits " + INDEX_ATTEMPTS + " times meanwhile; try again");
    }

    private static void pause(int attempt) {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, 5L << Math.min(attempt, 5)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ToolException.internal("interrupted while writing a habit", "interrupted while writing a habit", null);
        }
    }

    /**
     * Writes the user's index as {@code names} if it is still at {@code version} (absent for 0).
     *
     * @return false when another instance wrote it meanwhile (read it again)
     */
    private boolean writeIndex(String user, Map<String, String> names, long version, String what) {
        Map<String, AttributeValue> item = new HashMap<>(key(user, INDEX));
        Map<String, AttributeValue> m = new HashMap<>();
        names.forEach((id, name) -> m.put(id, s(name)));
        item.put("names", AttributeValue.fromM(m));
        item.put("version", n(version + 1));
        PutItemRequest.Builder put = PutItemRequest.builder().tableName(table).item(item);
        if (version == 0) {
            put.conditionExpression("attribute_not_exists(pk)");
        } else {
            put.conditionExpression("version = :v").expressionAttributeValues(Map.of(":v", n(version)));
        }
        try {
            run(what, () -> client.putItem(put.build()));
            return true;
        } catch (ConditionalCheckFailedException another) {
            return false;
        }
    }

    private Index index(String user) {
        return Index.of(run("read the habit index", () -> client.getItem(b -> b.tableName(table).key(key(user, INDEX))
                .consistentRead(true))).item());
    }

    /** The habit of this id, named {@code name} in the index, when its item is there. */
    private Optional<Habit> habit(String user, String id, String name) {
        Map<String, AttributeValue> item = run("read a habit", () -> client.getItem(b -> b.tableName(table)
                .key(key(user, HABIT + id)).consistentRead(true))).item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(habit(user, id, name, item));
    }

    @Override
    public Optional<Habit> find(String user, String idOrName) {
        Index index = index(user);
        String id = index.names().containsKey(idOrName) ? idOrName : index.named(idOrName, null);
        return id == null ? Optional.empty() : habit(user, id, index.names().get(id));
    }

    /**
     * A rename goes through the index first (a conditional write on its version, as create's), so a name refused or
     * raced changes nothing; then one UpdateItem sets (or removes, for a cleared target) only the attributes the change
     * gives, so another instance's change of other attributes meanwhile stands.
     */
    @Override
    public Habit update(String user, String id, HabitChange change, Instant now) {
        String name;
        for (int attempt = 0; ; attempt++) {
            Index index = index(user);
            name = index.names().get(id);
            if (name == null) {
                throw new ToolException(ToolException.Kind.NOT_FOUND, "habit: no habit " + id + " (deleted meanwhile?)");
            }
            if (change.name() == null || name.equals(change.name())) {
                break;
            }
            if (index.named(change.name(), id) != null) {
                throw ToolException.invalidArgument("name: another habit is named \"" + change.name()
                        + "\" already; names are unique per user, whatever their case");
            }
            Map<String, String> names = new LinkedHashMap<>(index.names());
            names.put(id, change.name());
            if (writeIndex(user, names, index.version(), "rename a habit")) {
                name = change.name();
                break;
            }
            if (attempt + 1 == INDEX_ATTEMPTS) {
                throw busy("rename a habit");
            }
            pause(attempt);
        }
        Map<String, AttributeValue> values = new HashMap<>();
        List<String> set = new ArrayList<>();
        List<String> remove = new ArrayList<>();
        if (change.schedule() != null) {
            set.add("#schedule = :schedule");
            values.put(":schedule", s(change.schedule().stored()));
        }
        if (change.targetAmount() != null) {
            change.targetAmount().ifPresentOrElse(a -> {
                set.add("#target_amount = :amount");
                values.put(":amount", n(a));
            }, () -> remove.add("#target_amount"));
        }
        if (change.targetUnit() != null) {
            change.targetUnit().ifPresentOrElse(u -> {
                set.add("#target_unit = :unit");
                values.put(":unit", s(u));
            }, () -> remove.add("#target_unit"));
        }
        if (change.zone() != null) {
            set.add("#zone = :zone");
            values.put(":zone", s(change.zone().getId()));
        }
        if (change.archived() != null) {
            set.add("#archived = :archived");
            values.put(":archived", AttributeValue.fromBool(change.archived()));
        }
        set.add("#updated_ms = :updated");
        values.put(":updated", n(now.toEpochMilli()));
        String expression = "SET " + String.join(", ", set) + (remove.isEmpty() ? "" : " REMOVE " + String.join(", ", remove));
        Map<String, String> names = new HashMap<>(); // every name a placeholder: ZONE is one of DynamoDB's reserved words
        for (String clause : set) {
            String attribute = clause.substring(1, clause.indexOf(' '));
            names.put("#" + attribute, attribute);
        }
        remove.forEach(r -> names.put(r, r.substring(1)));
        Map<String, AttributeValue> item;
        try {
            item = run("update a habit", () -> client.updateItem(b -> b.tableName(table).key(key(user, HABIT + id))
                    .updateExpression(expression).expressionAttributeValues(values).expressionAttributeNames(names)
                    .conditionExpression("attribute_exists(pk)").returnValues(ReturnValue.ALL_NEW))).attributes();
        } catch (ConditionalCheckFailedException gone) {
            throw new ToolException(ToolException.Kind.NOT_FOUND, "habit: no habit " + id + " (deleted meanwhile?)");
        }
        return habit(user, id, name, item);
    }

    @Override
    public List<Habit> habits(String user, boolean archivedToo) {
        Map<String, Map<String, AttributeValue>> items = new HashMap<>();
        Index index = Index.NONE;
        for (Map<String, AttributeValue> item : query(user, HABIT.substring(0, HABIT.length() - 1), "list habits")) {
            String sk = item.get(SK).s();
            if (sk.equals(INDEX)) {
                index = Index.of(item);
            } else {
                items.put(sk.substring(HABIT.length()), item);
            }
        }
        List<Habit> habits = new ArrayList<>();
        for (var e : index.names().entrySet()) {
            Map<String, AttributeValue> item = items.get(e.getKey());
            if (item != null) {
                Habit h = habit(user, e.getKey(), e.getValue(), item);
                if (archivedToo || !h.archived()) {
                    habits.add(h);
                }
            }
        }
        habits.sort(Comparator.comparing(Habit::created).thenComparing(Habit::id));
        return habits;
    }

    @Override
    public void log(String user, HabitLog l, Instant now) {
        Map<String, AttributeValue> item = new HashMap<>(key(user, LOG + l.habitId() + "#" + l.day()));
        item.put("done", AttributeValue.fromBool(l.done()));
        if (l.amount() != null) {
            item.put("amount", n(l.amount()));
        }
        if (l.note() != null) {
            item.put("note", s(l.note()));
        }
        item.put("updated_ms", n(now.toEpochMilli()));
        // keyed by (user, habit, day): a second write of the day replaces the first, never adds one
        run("log a day", () -> client.putItem(b -> b.tableName(table).item(item)));
    }

    @Override
    public Map<String, List<HabitLog>> logs(String user) {
        return logs(user, LOG, "read logs");
    }

    @Override
    public List<HabitLog> logs(String user, String habitId) {
        return logs(user, LOG + habitId + "#", "read a habit's logs").getOrDefault(habitId, List.of());
    }

    private Map<String, List<HabitLog>> logs(String user, String prefix, String what) {
        Map<String, List<HabitLog>> logs = new LinkedHashMap<>();
        for (Map<String, AttributeValue> item : query(user, prefix, what)) {
            String sk = item.get(SK).s(); // log#<id>#<day>: sorted by habit, then day
            int at = sk.lastIndexOf('#');
            String id = sk.substring(LOG.length(), at);
            AttributeValue amount = item.get("amount");
            AttributeValue note = item.get("note");
            logs.computeIfAbsent(id, k -> new ArrayList<>()).add(new HabitLog(id, LocalDate.parse(sk.substring(at + 1)),
                    item.get("done").bool(), amount == null ? null : Double.valueOf(amount.n()), note == null ? null : note.s()));
        }
        return logs;
    }

    /** Every item of the user's partition whose sort key begins with {@code prefix}, page after page, in key order. */
    private List<Map<String, AttributeValue>> query(String user, String prefix, String what) {
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        Map<String, AttributeValue> start = null;
        do {
            QueryRequest.Builder q = QueryRequest.builder().tableName(table).consistentRead(true)
                    .keyConditionExpression("pk = :pk AND begins_with(sk, :prefix)")
                    .expressionAttributeValues(Map.of(":pk", s(partition(user)), ":prefix", s(prefix)));
            if (start != null) {
                q.exclusiveStartKey(start);
            }
            if (pageItems > 0) {
                q.limit(pageItems);
            }
            QueryResponse page = run(what, () -> client.query(q.build()));
            items.addAll(page.items());
            start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
        } while (start != null);
        return items;
    }

    private static Map<String, AttributeValue> habitItem(Habit h, Instant now) {
        Map<String, AttributeValue> item = new HashMap<>(key(h.user(), HABIT + h.id()));
        item.put("schedule", s(h.schedule().stored()));
        if (h.targetAmount() != null) {
            item.put("target_amount", n(h.targetAmount()));
        }
        if (h.targetUnit() != null) {
            item.put("target_unit", s(h.targetUnit()));
        }
        item.put("zone", s(h.zone().getId()));
        item.put("archived", AttributeValue.fromBool(h.archived()));
        item.put("created_ms", n(h.created().toEpochMilli()));
        item.put("updated_ms", n(now.toEpochMilli()));
        return item;
    }

    private static Habit habit(String user, String id, String name, Map<String, AttributeValue> item) {
        AttributeValue target = item.get("target_amount");
        AttributeValue unit = item.get("target_unit");
        return new Habit(id, user, name, Schedule.ofStored(item.get("schedule").s()),
                target == null ? null : Double.valueOf(target.n()), unit == null ? null : unit.s(),
                ZoneId.of(item.get("zone").s()), item.get("archived").bool(),
                Instant.ofEpochMilli(Long.parseLong(item.get("created_ms").n())));
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[8];
        IDS.nextBytes(b);
        return b;
    }

    /** The user's partition: a digest, never the id itself (see the class comment). */
    static String partition(String user) {
        try {
            return "user#" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(user.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private static Map<String, AttributeValue> key(String user, String sk) {
        return Map.of(PK, s(partition(user)), SK, s(sk));
    }

    private static AttributeValue s(String v) {
        return AttributeValue.fromS(v);
    }

    private static AttributeValue n(long v) {
        return AttributeValue.fromN(Long.toString(v));
    }

    private static AttributeValue n(double v) {
        // plain digits: the shortest that reads back as the same double (17 significant digits at most, DynamoDB keeps 38)
        return AttributeValue.fromN(BigDecimal.valueOf(v).toPlainString());
    }

    /** A DynamoDB call; a refused condition is the caller's to handle, any other failure the tool's error naming the table. */
    private <T> T run(String what, Supplier<T> call) {
        try {
            return call.get();
        } catch (ConditionalCheckFailedException e) {
            throw e;
        } catch (SdkException e) {
            throw failed(what, e);
        }
    }

    private ToolException failed(String what, SdkException e) {
        String where = "habit store: the DynamoDB table " + table + ": cannot " + what + ": ";
        // the SDK's message only: its exception stays the cause, for a log; no stack trace reaches the caller
        if (e instanceof AwsServiceException s && s.isThrottlingException()) {
            return new ToolException(ToolException.Kind.RATE_LIMITED, where + "throttled (after the AWS SDK's retries; what was "
                    + "written before stays): try again later, or raise the table's capacity: " + e.getMessage(), e);
        }
        if (e instanceof SdkClientException || e instanceof AwsServiceException s && s.statusCode() >= 500) {
            return new ToolException(ToolException.Kind.UPSTREAM, where + "DynamoDB is unreachable or failing (what was written "
                    + "before stays): " + e.getMessage(), e);
        }
        return ToolException.internal("the habit store cannot " + what.replaceFirst(" \\(.*", ""), where + e.getMessage(), e);
    }
}
