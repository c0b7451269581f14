package dev.agenttools.server;

import dev.agenttools.server.oauth.RateLimiter;
import dev.agenttools.server.oauth.TrustedProxies;
import org.eclipse.jetty.io.SelectorManager;
import org.eclipse.jetty.util.IO;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SocketChannel;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * At most {@code max} connections open at once from one peer address (an IPv6 peer by its /64): a connection past
 * that is closed as it is accepted, before a byte of it is read, so that one stranger holding connections open cannot
 * take the file descriptors every other caller needs. A trusted proxy's own address is not limited (it carries all its
 * clients' connections; it bounds them itself). Jetty has a cap in all ({@code NetworkConnectionLimit}, used beside
 * this) and none per address; this listens where that one does, on the connector's accepts, and closes as it does.
 * Thread-safe; the map holds an entry per address with connections open, so it is bounded by the cap in all.
 */
final class AddressConnectionLimit implements SelectorManager.AcceptListener {
    private final int max;
    private final TrustedProxies proxies;
    private final ServiceMetrics metrics;
    /** Connections open per address; guarded by {@code this}. */
    private final Map<String, Integer> open = new HashMap<>();
    /** Each counted channel's address: a closed channel no longer tells its peer. */
    private final Map<SelectableChannel, String> addressOf = new ConcurrentHashMap<>();

    AddressConnectionLimit(int max, TrustedProxies proxies, ServiceMetrics metrics) {
        this.max = max;
        this.proxies = proxies;
        this.metrics = metrics;
    }

    @Override
    public void onAccepting(SelectableChannel channel) {
        if (!(channel instanceof SocketChannel socket)) {
            return;
        }
        InetSocketAddress peer;
        try {
            peer = (InetSocketAddress) socket.getRemoteAddress();
        } catch (IOException | ClassCastException e) {
            return; // closed already: nothing to count
        }
        if (peer == null || peer.getAddress() == null || proxies.isProxy(peer.getAddress())) {
            return;
        }
        String key = RateLimiter.key(peer.getAddress());
        boolean over;
        synchronized (this) {
            over = open.merge(key, 1, Integer::sum) > max;
            addressOf.put(channel, key);
        }
        if (over) {
            metrics.connectionClosed("address_limit");
            IO.close(channel); // Jetty then reports the accept failed, which releases the count
        }
    }

    @Override
    public void onAcceptFailed(SelectableChannel channel, Throwable cause) {
        release(channel);
    }

    @Override
    public void onClosed(SelectableChannel channel) {
        release(channel);
    }

    private void release(SelectableChannel channel) {
        String key = addressOf.remove(channel);
        if (key != null) {
            synchronized (this) {
                open.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
            }
        }
    }
}
