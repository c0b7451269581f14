package dev.agenttools.server;

import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.InetAddressPattern;
import org.eclipse.jetty.util.InetAddressSet;

import java.net.InetAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code Host} values {@code /metrics} answers for ({@value #SETTING}; docs/http-limits.md): host names, IP
 * addresses and CIDR ranges of them, or {@code *} for any. Why: a reverse proxy that publishes the server under a
 * public name passes every path on, {@code /metrics} included, unless told otherwise; a request for the public name
 * is then answered 403, while a scraper that reaches the server by its own address or a loopback name is answered.
 * The port is ignored. Immutable, thread-safe.
 *
 * <p>The address matching is Jetty's {@link InetAddressSet}; entries are checked here first as IP literals, since its
 * patterns would also take host names (resolved once by DNS) and ranges of other shapes.
 */
final class MetricsHosts {
    static final String SETTING = "AGENT_TOOLS_SERVER_METRICS_HOSTS";
    private static final String LABEL = "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?";
    private static final Pattern NAME = Pattern.compile(LABEL + "(\\." + LABEL + ")*");
    private static final Pattern IP = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}|[0-9a-f:.]*:[0-9a-f:.]*");

    private final boolean any;
    private final Set<String> names = new HashSet<>();
    private final InetAddressSet addresses = new InetAddressSet();
    private boolean anyAddress;

    private MetricsHosts(List<String> entries) {
        boolean star = false;
        for (String raw : entries) {
            String entry = raw.strip().toLowerCase(Locale.ROOT);
            if (entry.equals("*")) {
                star = true;
            } else if (address(entry)) {
                addresses.add(entry);
                anyAddress = true;
            } else if (NAME.matcher(entry).matches() && entry.length() <= 253) {
                names.add(entry);
            } else {
                String shown = entry.length() > 100 ? entry.substring(0, 100) + "…" : entry;
                throw new IllegalArgumentException(SETTING + ": \"" + shown + "\" is not a host name, an IP address, a "
                        + "CIDR range (such as 10.0.0.0/8) or *");
            }
        }
        this.any = star;
    }

    /**
     * The entries of the setting (comma-separated when read from text).
     *
     * @throws IllegalArgumentException naming the setting and the entry
     */
    static MetricsHosts parse(List<String> entries) {
        return new MetricsHosts(entries);
    }

    /** Whether {@code entry} is an IP address or range, checked as Jetty's set takes it. */
    private static boolean address(String entry) {
        int slash = entry.indexOf('/');
        String literal = slash < 0 ? entry : entry.substring(0, slash);
        if (!IP.matcher(literal).matches()) {
            return false;
        }
        InetAddress address;
        try {
            address = InetAddress.ofLiteral(literal);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(SETTING + ": \"" + entry + "\" is not an IP address", e);
        }
        int max = address.getAddress().length * 8;
        if (slash >= 0) {
            String bits = entry.substring(slash + 1);
            if (!bits.matches("\\d{1,3}") || Integer.parseInt(bits) > max) {
                throw new IllegalArgumentException(SETTING + ": \"" + entry + "\" has a prefix length out of 0.."
                        + max);
            }
            try {
                InetAddressPattern.from(entry);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(SETTING + ": \"" + entry + "\" has bits set past its prefix (a "
                        + "range is written with them zero, such as 10.0.0.0/8)", e);
            }
        }
        return true;
    }

    /** Whether the request's {@code Host} (or HTTP/2's {@code :authority}) is one of the entries. */
    boolean allows(Request request) {
        if (any) {
            return true;
        }
        String host = request.getHttpURI().getHost();
        if (host == null || host.isEmpty()) {
            return false;
        }
        host = host.toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (IP.matcher(host).matches()) {
            try {
                return anyAddress && addresses.test(InetAddress.ofLiteral(host));
            } catch (IllegalArgumentException e) {
                return false;
            }
        }
        return names.contains(host.endsWith(".") ? host.substring(0, host.length() - 1) : host);
    }
}
