package dev.agenttools.cli;

import dev.agenttools.Settings;
import dev.agenttools.server.HttpService;
import dev.agenttools.server.oauth.OAuthSettings;
import dev.agenttools.server.oauth.RateLimiter;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP front's limits from the environment and config file (docs/http-limits.md): rates per user and per client
 * address, the header deadline, the idle timeout, the connection caps, the trusted proxies and the {@code Host}s
 * {@code /metrics} answers for. Read once at start; every problem names the setting and what it allows.
 */
final class ServerLimits {
    static final String USER_RATE = "AGENT_TOOLS_SERVER_USER_RATE";
    static final String ADDRESS_RATE = "AGENT_TOOLS_SERVER_ADDRESS_RATE";
    static final String HEADER_TIMEOUT = "AGENT_TOOLS_SERVER_HEADER_TIMEOUT";
    static final String IDLE_TIMEOUT = "AGENT_TOOLS_SERVER_IDLE_TIMEOUT";
    static final String MAX_CONNECTIONS = "AGENT_TOOLS_SERVER_MAX_CONNECTIONS";
    static final String MAX_CONNECTIONS_PER_ADDRESS = "AGENT_TOOLS_SERVER_MAX_CONNECTIONS_PER_ADDRESS";
    static final String METRICS_HOSTS = "AGENT_TOOLS_SERVER_METRICS_HOSTS";
    /** File descriptors left for what is not a caller's connection: the stores, Google's connections, the JVM's own. */
    static final int RESERVED_FILES = 256;
    private static final Pattern RATE = Pattern.compile("(\\d{1,7})\\s*/\\s*(\\S+)");

    private ServerLimits() {
    }

    /** @throws IllegalArgumentException naming the setting that is bad */
    static HttpService.Limits from(Settings settings) {
        RateLimiter.Rate user = rate(settings, USER_RATE, HttpService.Limits.DEFAULT_USER_RATE);
        RateLimiter.Rate address = rate(settings, ADDRESS_RATE, HttpService.Limits.DEFAULT_ADDRESS_RATE);
        Duration header = duration(settings, HEADER_TIMEOUT, HttpService.Limits.DEFAULT_HEADER_TIMEOUT,
                Duration.ofSeconds(1), Duration.ofMinutes(5), "1s..5m");
        Duration idle = duration(settings, IDLE_TIMEOUT, HttpService.Limits.DEFAULT_IDLE_TIMEOUT,
                Duration.ofSeconds(1), Duration.ofHours(1), "1s..1h");
        int inAll = settings.wholeNumber(MAX_CONNECTIONS, defaultMaxConnections(), 1, 1_000_000);
        int perAddress = settings.wholeNumber(MAX_CONNECTIONS_PER_ADDRESS,
                Math.min(HttpService.Limits.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, inAll), 1, 1_000_000);
        if (perAddress > inAll) {
            throw new IllegalArgumentException(MAX_CONNECTIONS_PER_ADDRESS + " must be at most " + MAX_CONNECTIONS
                    + " (" + inAll + "), got " + perAddress);
        }
        String hosts = settings.value(METRICS_HOSTS);
        List<String> metricsHosts = hosts == null || hosts.isBlank() ? HttpService.Limits.DEFAULT_METRICS_HOSTS
                : Arrays.stream(hosts.split(",")).map(String::strip).filter(h -> !h.isEmpty()).toList();
        List<String> proxies = OAuthSettings.parseTrustedProxies(settings.value(ServerAuthorization.TRUSTED_PROXIES));
        return new HttpService.Limits(user, address, header, idle, inAll, perAddress, proxies, metricsHosts);
    }

    /**
     * {@link HttpService.Limits#DEFAULT_MAX_CONNECTIONS}, or fewer when the process may open fewer files: past that
     * limit every accept fails ("Too many open files") and no caller is served at all, so the cap stays below it.
     */
    static int defaultMaxConnections() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            long files = unix.getMaxFileDescriptorCount();
            if (files > 0 && files - RESERVED_FILES < HttpService.Limits.DEFAULT_MAX_CONNECTIONS) {
                return (int) Math.max(16, files - RESERVED_FILES);
            }
        }
        return HttpService.Limits.DEFAULT_MAX_CONNECTIONS;
    }

    /** {@code N/DURATION}: at most N requests at once, refilled evenly over the duration ({@code 600/1m}). */
    private static RateLimiter.Rate rate(Settings settings, String name, RateLimiter.Rate fallback) {
        String v = settings.value(name);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        Matcher m = RATE.matcher(v.strip());
        String allowed = name + " must be N/DURATION, N requests (1..1000000) per 1s..1d, such as "
                + fallback.burst() + "/1m, got \"" + (v.length() > 40 ? v.substring(0, 40) + "..." : v) + "\"";
        if (!m.matches()) {
            throw new IllegalArgumentException(allowed);
        }
        int n = Integer.parseInt(m.group(1));
        Duration period;
        try {
            period = new DurationConverter().convert(m.group(2));
        } catch (picocli.CommandLine.TypeConversionException e) {
            throw new IllegalArgumentException(allowed, e);
        }
        if (n < 1 || n > 1_000_000 || period.compareTo(Duration.ofSeconds(1)) < 0
                || period.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException(allowed);
        }
        return new RateLimiter.Rate(n, period);
    }

    private static Duration duration(Settings settings, String name, Duration fallback, Duration min, Duration max,
                                     String range) {
        String v = settings.value(name);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        Duration d;
        try {
            d = new DurationConverter().convert(v);
        } catch (picocli.CommandLine.TypeConversionException e) {
            throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
        }
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new IllegalArgumentException(name + " must be " + range + ", got " + v.strip());
        }
        return d;
    }
}
