package dev.agenttools.server.oauth;

import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.InetAddressPattern;
import org.eclipse.jetty.util.InetAddressSet;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The proxies whose {@code X-Forwarded-For} the sign-in endpoints' limits believe ({@code
 * AGENT_TOOLS_SERVER_TRUSTED_PROXIES}), and the client address a request is counted under (docs/authorization.md, "Limits of the
 * sign-in endpoints"; the HTTP front's limits on {@code /mcp} and {@code /v1/call} count by it too, docs/http-limits.md).
 * Nothing else in the server reads the header: what clients are told comes from the public URL. Immutable,
 * thread-safe. Public only for the HTTP front (internal).
 *
 * <p>The address and CIDR matching is Jetty's {@link InetAddressSet} (already on the class path for the server); the
 * entries are checked here first as IP literals with a prefix length, because Jetty's patterns also take host names
 * (resolved by DNS once, at start) and ranges of other shapes, which a trust list should not silently hold.
 */
public final class TrustedProxies {
    /** The setting, named in every refusal. */
    static final String SETTING = "AGENT_TOOLS_SERVER_TRUSTED_PROXIES";
    /** At most this many {@code X-Forwarded-For} entries are looked at, from the right. */
    static final int MAX_ENTRIES = 20;
    /** At most this many characters of {@code X-Forwarded-For} are read, from the right. */
    static final int MAX_CHARS = 2048;
    public static final TrustedProxies NONE = new TrustedProxies(List.of());

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");
    private static final Pattern PORT = Pattern.compile("\\d{1,5}");

    private final List<String> entries;
    private final InetAddressSet set = new InetAddressSet();

    /** @param entries as {@link #check} returns them */
    public TrustedProxies(List<String> entries) {
        this.entries = List.copyOf(entries);
        for (String e : this.entries) {
            set.add(e);
        }
    }

    /**
     * The entries of {@code text}, comma-separated, each an IPv4 or IPv6 address or a CIDR range, in the form
     * {@code ADDRESS/BITS} that Jetty's set takes.
     *
     * @throws IllegalArgumentException naming the setting and the entry
     */
    public static List<String> parse(String text) {
        List<String> entries = new ArrayList<>();
        if (text == null) {
            return entries;
        }
        for (String entry : text.split(",", -1)) {
            if (!entry.isBlank()) {
                entries.add(check(entry.strip()));
            }
        }
        return entries;
    }

    /**
     * One entry as {@code ADDRESS/BITS} (a single address: all its bits).
     *
     * @throws IllegalArgumentException naming the setting and the entry
     */
    public static String check(String entry) {
        String shown = entry.length() > 100 ? entry.substring(0, 100) + "…" : entry;
        int slash = entry.indexOf('/');
        InetAddress address = literal(slash < 0 ? entry : entry.substring(0, slash));
        if (address == null) {
            throw new IllegalArgumentException(SETTING + ": \"" + shown + "\" is not an IP address or CIDR range (such as "
                    + "10.0.0.5, 10.0.0.0/8, fd00::/8; no host names)");
        }
        int max = address.getAddress().length * 8;
        int bits = max;
        if (slash >= 0) {
            String prefix = entry.substring(slash + 1);
            bits = prefix.matches("\\d{1,3}") ? Integer.parseInt(prefix) : -1;
            if (bits < 0 || bits > max) {
                throw new IllegalArgumentException(SETTING + ": \"" + shown + "\" has a prefix length out of 0.." + max);
            }
        }
        String pattern = address.getHostAddress() + "/" + bits;
        try {
            InetAddressPattern.from(pattern);
        } catch (IllegalArgumentException e) {
            // Jetty refuses a range whose address has bits set past its prefix (10.0.0.1/8): a typo, most likely
            throw new IllegalArgumentException(SETTING + ": \"" + shown + "\" has bits set past its /" + bits
                    + " prefix (a range is written with them zero, such as 10.0.0.0/8)", e);
        }
        return pattern;
    }

    /** Whether a connection's peer is one of the proxies (it carries many clients' requests). */
    public boolean isProxy(InetAddress peer) {
        return !entries.isEmpty() && set.test(peer);
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    List<String> entries() {
        return entries;
    }

    /**
     * The address a request is counted under: the connection's peer, unless the peer is a trusted proxy; then the
     * right-most address of {@code X-Forwarded-For} that is not a trusted proxy. Each proxy appends the address it
     * received the request from, so the entries right of the client's are the proxies' own, and whatever the client
     * wrote stands left of its own address, where the walk never reaches. A header that is missing, or holds
     * something other than an address before an untrusted one is found (or is longer than {@value #MAX_ENTRIES}
     * entries or {@value #MAX_CHARS} characters before then), counts the proxy's own address. A peer that is not
     * trusted is counted as itself, whatever it wrote. An IPv6 address counts as its /64.
     */
    public String clientAddress(Request request) {
        SocketAddress remote = request.getConnectionMetaData().getRemoteSocketAddress();
        if (!(remote instanceof InetSocketAddress inet) || inet.getAddress() == null) {
            return String.valueOf(remote);
        }
        InetAddress peer = inet.getAddress();
        InetAddress client = entries.isEmpty() || !set.test(peer) ? peer : forwardedClient(request.getHeaders(), peer);
        return RateLimiter.key(client);
    }

    /**
     * The client {@code X-Forwarded-For} names, walked from the right; {@code peer} when it names none well. Only
     * this header, not RFC 7239's {@code Forwarded}: a proxy that writes one passes the other on as the client wrote
     * it, so reading both would let a client choose its address; {@code X-Forwarded-For} is the one HAProxy's
     * {@code option forwardfor}, nginx and the cloud load balancers write.
     */
    private InetAddress forwardedClient(HttpFields headers, InetAddress peer) {
        List<String> lines = headers.getValuesList(HttpHeader.X_FORWARDED_FOR);
        int budget = MAX_CHARS;
        int count = 0;
        InetAddress leftmost = null;
        // several header lines are one list, in order (RFC 9110 section 5.3): HAProxy adds a line of its own
        for (int i = lines.size() - 1; i >= 0; i--) {
            String line = lines.get(i);
            int end = line.length();
            while (true) {
                int start = end;
                while (start > 0 && line.charAt(start - 1) != ',') {
                    start--;
                    if (end - start > budget) {
                        return peer;
                    }
                }
                budget -= end - start + 1;
                if (budget < 0 || ++count > MAX_ENTRIES) {
                    return peer;
                }
                InetAddress address = node(line.substring(start, end).strip());
                if (address == null) {
                    return peer;
                }
                if (!set.test(address)) {
                    return address;
                }
                leftmost = address;
                if (start == 0) {
                    break;
                }
                end = start - 1;
            }
        }
        // every entry a trusted address: the client is one of them (the proxies append an untrusted client's address)
        return leftmost == null ? peer : leftmost;
    }

    /**
     * An {@code X-Forwarded-For} entry: an IPv4 or IPv6 address, IPv6 perhaps in brackets, either perhaps with a port
     * (some balancers add it); null for anything else ({@code unknown}, an obfuscated name, garbage).
     */
    private static InetAddress node(String entry) {
        if (entry.length() > 64) {
            return null;
        }
        String host = entry;
        if (entry.startsWith("[")) {
            int close = entry.indexOf(']');
            if (close < 0 || !(close == entry.length() - 1 || entry.charAt(close + 1) == ':' && port(entry.substring(close + 2)))) {
                return null;
            }
            host = entry.substring(1, close);
            if (!host.contains(":")) {
                return null;
            }
        } else if (entry.indexOf(':') > 0 && entry.indexOf(':') == entry.lastIndexOf(':')) {
            int colon = entry.indexOf(':'); // an IPv4 address with a port: IPv6 has two colons at least
            if (!port(entry.substring(colon + 1))) {
                return null;
            }
            host = entry.substring(0, colon);
        }
        return literal(host);
    }

    private static boolean port(String text) {
        return PORT.matcher(text).matches() && Integer.parseInt(text) <= 65_535;
    }

    /** An IP address as written, never looked up: a dotted quad or IPv6 (no zone); null for anything else. */
    private static InetAddress literal(String text) {
        if (!IPV4.matcher(text).matches() && !IPV6.matcher(text).matches()) {
            return null;
        }
        try {
            return InetAddress.ofLiteral(text.toLowerCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return entries.toString();
    }
}
