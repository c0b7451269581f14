package dev.agenttools.tracking;

import dev.agenttools.store.SqliteStore;
import dev.agenttools.tool.Diagnostics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/** Opens the configured call store. */
public final class Tracking {
    private Tracking() {
    }

    /**
     * The sink the settings name, or null for {@code none}; creates the store (file, folders, table) when missing. A
     * SQLite file an older version left in WAL mode and still has open cannot be converted now: its spool takes the
     * records meanwhile (the next process to open the store moves them in), rather than losing them.
     */
    public static CallSink openSink(TrackingSettings settings, List<String> tools) {
        return switch (settings.sink()) {
            case SQLITE -> {
                try {
                    yield new SqliteSink(settings.sqliteFile());
                } catch (UncheckedIOException e) {
                    if (!(e.getCause() instanceof SqliteStore.HeldInWalMode)) {
                        throw e;
                    }
                    Spool spool = new Spool(settings.sqliteFile());
                    Diagnostics.warn(e.getCause().getMessage() + "; call records go to " + spool.file()
                            + " until it can be");
                    yield spool;
                }
            }
            case DYNAMODB -> new DynamoDbSink(DynamoDbSink.client(settings), settings.dynamoTable(), tools);
            case NONE -> null;
        };
    }

    /**
     * The configured store opened to read: empty when it does not exist yet (no call recorded), or for {@code none}.
     * For {@code stats}. Creates nothing, except that SQLite records still in the spool are first moved into the
     * store (creating it if need be), so that they are counted.
     */
    public static Optional<CallSink> openReader(TrackingSettings settings, List<String> tools) {
        return switch (settings.sink()) {
            case SQLITE -> SqliteSink.openToRead(settings.sqliteFile()).map(CallSink.class::cast);
            case DYNAMODB -> DynamoDbSink.openReadOnly(DynamoDbSink.client(settings), settings.dynamoTable(), tools).map(CallSink.class::cast);
            case NONE -> Optional.empty();
        };
    }


    /**
     * A recorder writing to the configured sink, or null for {@code none}, for a long-running process ({@code server},
     * {@code serve}, {@code mcp}, the resident server). The sink is opened by the recorder's own thread on first
     * write, or at once when dead processes left journals to ship, so that opening it never delays a call; if it
     * cannot be opened, records are dropped and counted, unless the reason may pass (a DynamoDB unreachable, a SQLite
     * file locked): then they are kept and the store opened again at the writer's next try. With the journal on (the
     * default), each record is also appended to this process's {@link Journal}, so that it survives SIGKILL; a journal
     * that cannot be made (stderr says why) leaves the recorder without one.
     */
    public static CallRecorder openRecorder(TrackingSettings settings, List<String> tools) {
        if (settings.sink() == TrackingSettings.Sink.NONE) {
            return null;
        }
        Journal journal = null;
        if (settings.journal() != null) {
            try {
                journal = Journal.open(journalFolder(settings));
            } catch (IOException | RuntimeException e) {
                Diagnostics.warn("the call journal is off: " + e.getMessage());
            }
        }
        Predicate<Exception> mayPass = switch (settings.sink()) {
            case SQLITE -> SqliteSink::busy;
            case DYNAMODB -> DynamoDbSink::outage;
            case NONE -> e -> false;
        };
        return new CallRecorder(new LazySink(settings.sink().wireName(), () -> openSink(settings, tools), mayPass),
                CallRecorder.DEFAULT_CAPACITY, settings.flushTimeout(), journal);
    }

    /**
     * The journals of one store: in the journals' folder, a folder named by the sink and a digest of where it writes
     * (the SQLite file, or DynamoDB's region, endpoint and table), so that a journal is only ever shipped to the store
     * its records were meant for.
     */
    static Path journalFolder(TrackingSettings settings) {
        String where = switch (settings.sink()) {
            case SQLITE -> settings.sqliteFile().toAbsolutePath().normalize().toString();
            case DYNAMODB -> settings.region() + " " + (settings.dynamoEndpoint() == null ? "aws" : settings.dynamoEndpoint())
                    + " " + settings.dynamoTable();
            case NONE -> throw new IllegalArgumentException("no store, no journal");
        };
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(where.getBytes(StandardCharsets.UTF_8));
            return settings.journal().resolve(settings.sink().wireName() + "-" + HexFormat.of().formatHex(digest, 0, 8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /**
     * A recorder for a process that makes one call and exits ({@code agent-tools call}): as {@link #openRecorder}, but
     * with {@code sqlite} the records are appended to the store's spool, so that the exit never waits for SQLite to
     * load and open; the next process that opens the store moves them in. DynamoDB and {@code none} as in
     * {@link #openRecorder}.
     */
    public static CallRecorder openOneShotRecorder(TrackingSettings settings, List<String> tools) {
        if (settings.sink() == TrackingSettings.Sink.SQLITE) {
            return new CallRecorder(new Spool(settings.sqliteFile()), CallRecorder.DEFAULT_CAPACITY, settings.flushTimeout());
        }
        return openRecorder(settings, tools);
    }

    /** Statistics per tool and backend since {@code since}: SQL for SQLite, Queries plus aggregation elsewhere. */
    public static List<StatsRow> stats(CallSink sink, Instant since, String tool) throws Exception {
        if (sink instanceof SqliteSink sqlite) {
            return sqlite.stats(since, tool);
        }
        return StatsCalculator.of(sink.read(since, tool));
    }
}
