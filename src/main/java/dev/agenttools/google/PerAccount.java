package dev.agenttools.google;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Something kept per {@link Account} (a pacer, a cache), made on first use and bounded: past {@code max} accounts
 * the least recently used is forgotten, so a long-running server that has seen many tokens does not grow forever.
 * Thread-safe.
 *
 * <p>A synchronized access-ordered {@link LinkedHashMap} rather than a cache library: this is its documented use
 * (LRU via {@code removeEldestEntry}), and each access is a map lookup under a lock held for nanoseconds.
 */
public final class PerAccount<V> {
    private final Function<Account, V> make;
    private final Map<Account, V> values;

    public PerAccount(int max, Function<Account, V> make) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be positive, got " + max);
        }
        this.make = make;
        this.values = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Account, V> eldest) {
                return size() > max;
            }
        };
    }

    /**
     * The account's value, made on first use; an account first seen by its address takes over the value of what its
     * credential was known as before ({@link Account#formerly}), so that pacing learned in a credential's first calls
     * is not lost when its address becomes known (both keys then share it).
     */
    public synchronized V get(Account account) {
        V value = values.get(account);
        if (value == null) {
            V before = account.formerly() == null ? null : values.get(account.formerly());
            value = before != null ? before : make.apply(account);
            values.put(account, value);
        }
        return value;
    }

    /** The values kept now (one kept under two keys appears twice), copied: for reading outside the lock. */
    synchronized List<V> values() {
        return List.copyOf(values.values());
    }

    synchronized int size() {
        return values.size();
    }
}
