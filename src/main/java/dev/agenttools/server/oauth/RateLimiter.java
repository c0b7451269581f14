package dev.agenttools.server.oauth;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A token bucket per client address: at most {@code burst} requests at once, and one more each {@code period / burst}
 * after. Written here rather than taken from Jetty's {@code DoSHandler}, which counts whole requests per second (too
 * coarse for 20 registrations in 10 minutes) and tells a refused client nothing of when to come back; a rate-limiting
 * library would be a dependency for these few lines. Thread-safe. Public only for the HTTP front's limits on
 * {@code /mcp} and {@code /v1/call} (internal).
 *
 * <p>The addresses tracked are bounded: past {@code maxTracked}, the buckets that have filled up again (idle
 * addresses) are dropped, and if that is not enough all are, so that a flood of addresses costs memory up to the
 * bound and no more; the limits then start afresh (the cap on registered clients still holds).
 */
public final class RateLimiter {
    /**
     * At most {@code burst} requests in {@code period} from one address.
     */
    public record Rate(int burst, Duration period) {
        public Rate {
            if (burst < 1 || period == null || period.isNegative() || period.isZero()) {
                throw new IllegalArgumentException("a rate needs a burst of 1 or more and a positive period, got "
                        + burst + " per " + period);
            }
        }

        @Override
        public String toString() {
            return burst + " per " + (period.toSeconds() % 60 == 0 ? period.toMinutes() + " min" : period.toSeconds() + " s");
        }
    }

    private final Rate rate;
    private final Clock clock;
    private final int maxTracked;
    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();

    public RateLimiter(Rate rate, Clock clock, int maxTracked) {
        this.rate = rate;
        this.clock = clock;
        this.maxTracked = maxTracked;
    }

    public Rate rate() {
        return rate;
    }

    /** Takes one request from the address's bucket: zero when it may go on, else how long until it may. */
    public Duration take(String address) {
        long now = clock.millis();
        if (buckets.size() >= maxTracked && !buckets.containsKey(address)) {
            buckets.values().removeIf(b -> b.full(now));
            if (buckets.size() >= maxTracked) {
                buckets.clear();
            }
        }
        return buckets.computeIfAbsent(address, a -> new Bucket(rate, now)).take(now);
    }

    /** How many addresses are tracked (for the tests). */
    int tracked() {
        return buckets.size();
    }

    /**
     * The key an address is counted under: an IPv4 address as it is, an IPv6 address as its /64, since a host is given
     * a whole /64 and may use any address in it. Which address a request counts as is {@link TrustedProxies}'s.
     */
    public static String key(InetAddress address) {
        byte[] bytes = address.getAddress();
        if (bytes.length == 16) {
            try {
                return InetAddress.getByAddress(Arrays.copyOf(Arrays.copyOf(bytes, 8), 16)).getHostAddress() + "/64";
            } catch (UnknownHostException cannot) {
                throw new IllegalStateException(cannot); // 16 bytes are always an address
            }
        }
        return address.getHostAddress();
    }

    private static final class Bucket {
        private final Rate rate;
        private double tokens;
        private long at;

        Bucket(Rate rate, long now) {
            this.rate = rate;
            this.tokens = rate.burst();
            this.at = now;
        }

        synchronized Duration take(long now) {
            refill(now);
            if (tokens >= 1) {
                tokens -= 1;
                return Duration.ZERO;
            }
            double perToken = (double) rate.period().toMillis() / rate.burst();
            return Duration.ofMillis(Math.max(1, (long) Math.ceil((1 - tokens) * perToken)));
        }

        synchronized boolean full(long now) {
            refill(now);
            return tokens >= rate.burst();
        }

        private void refill(long now) {
            if (now > at) {
                tokens = Math.min(rate.burst(), tokens + (now - at) * (double) rate.burst() / rate.period().toMillis());
                at = now;
            }
        }
    }
}
