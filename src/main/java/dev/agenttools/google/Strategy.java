package dev.agenttools.google;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Backend;
import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.FanOut;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How the items of one call (Gmail's listed messages, Calendar's calendars) are fetched once they are named: one
 * after another, all at once within the user's in-flight limit, or in batch requests. Every strategy answers one
 * value per item in the order of the items, so the answer is the same whichever fetched it; what fails the whole call
 * is thrown, cancelling what is in flight. Gmail and Calendar share this one implementation: they only say how to
 * fetch one item and one batch ({@link Source}).
 */
public enum Strategy {
    /** Picks per call: one item gains nothing from fan-out; several go out at once over one HTTP/2 connection. */
    AUTO,
    SEQUENTIAL,
    CONCURRENT,
    BATCH;

    /** The name of the strategy param, the same in every tool that has one. */
    public static final String PARAM = "strategy";
    /** The names callers choose from, {@code auto} first. */
    public static final List<String> NAMES = Arrays.stream(values()).map(Strategy::wireName).toList();

    /** How one API fetches its items: a value per item, never throwing what only that item met. */
    public interface Source<K, V> {
        /** One item on its own request. */
        V one(K item) throws InterruptedException;

        /** Items in one batch request, a value for each (in any order). */
        Map<K, V> batch(List<K> items) throws InterruptedException;
    }

    /**
     * What bounds a fetch: the user's in-flight limit now (learned from Google's refusals) and the parts per batch
     * request configured.
     */
    public record Limits(int maxInFlight, int batchSize) {
        public Limits {
            maxInFlight = Math.max(1, maxInFlight);
            batchSize = Math.max(1, batchSize);
        }
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The strategy a call asked for ({@code auto} when it asked for none). */
    public static Strategy of(Params p) {
        return valueOf(p.choice(PARAM, NAMES, AUTO.wireName()).toUpperCase(Locale.ROOT));
    }

    /** The strategy that fetches {@code count} items: {@code auto} resolved, the others themselves. */
    public Strategy resolve(int count) {
        return this != AUTO ? this : count <= 1 ? SEQUENTIAL : CONCURRENT;
    }

    /** What the answer says answered it. */
    public Backend backend() {
        return switch (this) {
            case SEQUENTIAL -> Backend.SEQUENTIAL;
            case CONCURRENT -> Backend.CONCURRENT;
            case BATCH -> Backend.BATCH;
            case AUTO -> throw new IllegalStateException("auto answers as the strategy it resolves to");
        };
    }

    /**
     * Fetches {@code items} this way ({@code auto} resolved first), a value per item in their order.
     *
     * @param what what is fetched, for a deadline's error ("gmail messages.get x10")
     */
    public <K, V> List<V> fetch(List<K> items, Source<K, V> source, Limits limits, Deadline deadline, String what)
            throws InterruptedException {
        return switch (resolve(items.size())) {
            case SEQUENTIAL -> {
                List<V> out = new ArrayList<>(items.size());
                for (K item : items) {
                    out.add(source.one(item));
                }
                yield out;
            }
            case BATCH -> batches(items, source, limits, deadline, what);
            default -> FanOut.map(items, limits.maxInFlight(), deadline, what, source::one); // concurrent
        };
    }

    /**
     * Chunks as {@link #chunkSizes} cuts them, as many at once as the in-flight limit holds (Google charges each part
     * to it).
     */
    private static <K, V> List<V> batches(List<K> items, Source<K, V> source, Limits limits, Deadline deadline, String what) {
        List<Integer> sizes = chunkSizes(items.size(), limits.maxInFlight(), limits.batchSize());
        List<List<K>> chunks = new ArrayList<>(sizes.size());
        int from = 0;
        for (int size : sizes) {
            chunks.add(items.subList(from, from + size));
            from += size;
        }
        int atOnce = sizes.isEmpty() ? 1 : Math.max(1, limits.maxInFlight() / sizes.getFirst());
        Map<K, V> all = new LinkedHashMap<>();
        FanOut.map(chunks, atOnce, deadline, what, source::batch).forEach(all::putAll);
        List<V> out = new ArrayList<>(items.size());
        for (K item : items) {
            V value = all.get(item);
            if (value == null) {
                // every part is answered (an outcome, failed or not): a missing one is a bug, not an empty answer
                throw new ToolException(ToolException.Kind.INTERNAL, what + ": the batch gave no answer for " + item);
            }
            out.add(value);
        }
        return out;
    }

    /** The strategy param's schema: the names, {@code auto} by default. */
    public static void describe(ObjectNode properties, String description) {
        ObjectNode s = properties.putObject(PARAM).put("type", "string").put("default", AUTO.wireName()).put("description", description);
        ArrayNode values = s.putArray("enum");
        NAMES.forEach(values::add);
    }

    /**
     * A call that failed on a fast path again on the sequential one, the surest (see
     * {@link dev.agenttools.tool.ToolInterceptor#fallback()}); null when it already was sequential, or asked for a strategy that
     * does not exist (the caller's error, not a reason to try another).
     */
    public static ToolCall sequentially(ToolCall failed) {
        JsonNode s = failed.params().get(PARAM);
        if (s != null && !(s.isTextual() && NAMES.contains(s.asText())) || s != null && s.asText().equals(SEQUENTIAL.wireName())) {
            return null;
        }
        ObjectNode params = failed.params().deepCopy();
        params.put(PARAM, SEQUENTIAL.wireName());
        return failed.withParams(params);
    }

    /**
     * The parts of each batch request for {@code count} items, in order, as even as can be (the first ones one larger):
     * at most {@code batchSize} and {@code maxInFlight}, and about the square root of the count. Why the root: a batch
     * is answered when its last part is done, so its time grows with its parts (Google runs a batch's parts as separate
     * requests behind one exchange; the emulator charges each part's server time), while every further chunk is only
     * one more HTTP/2 stream on the connection already open. Ten items go as 4, 3 and 3 (not one batch of ten whose
     * answer waits for all ten); a hundred as ten of ten, ten times fewer requests than one each. The benchmark's bound
     * ({@code bench.Bounds}) cuts them with this.
     */
    public static List<Integer> chunkSizes(int count, int maxInFlight, int batchSize) {
        if (count <= 0) {
            return List.of();
        }
        int most = Math.max(1, Math.min(Math.min(batchSize, maxInFlight), (int) Math.ceil(Math.sqrt(count))));
        int chunks = (count + most - 1) / most;
        List<Integer> sizes = new ArrayList<>(chunks);
        for (int i = 0; i < chunks; i++) {
            sizes.add(count / chunks + (i < count % chunks ? 1 : 0));
        }
        return sizes;
    }
}
