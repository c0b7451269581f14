package dev.agenttools.server;

import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A deadline for a request's headers (Slowloris): a connection whose first request's headers have not all arrived
 * within {@code deadline} of its opening, or, on an HTTP/1 connection between requests, whose next request's headers
 * have not all arrived within {@code deadline} of its first byte, is closed, whatever trickle of bytes keeps it from
 * being idle. Jetty 12 has no such setting: its idle timeout starts again at every byte, and its minimum data rate
 * counts request bodies only. So this keeps its own watch: requests are seen here when their headers are complete
 * (this handler runs then) and when they end, and a sweep every {@link #period} looks at the connector's open
 * connections; a connection closed by the sweep is counted in {@code agent_tools_connections_closed_total}.
 *
 * <p>What it does not see: an HTTP/2 connection's frames after its first request (HTTP/2 has its own bounds in Jetty:
 * stream and frame limits, rapid-reset and flood protections), and bytes that stop altogether (the idle timeout's).
 * A connection is closed at most one period after its deadline. Thread-safe.
 */
final class HeaderDeadline extends Handler.Wrapper {
    private final Duration deadline;
    private final ServiceMetrics metrics;
    private final Map<EndPoint, Watch> watches = new ConcurrentHashMap<>();
    private AbstractConnector connector;
    private Scheduler.Task sweep;

    /** What is known of one network connection; guarded by itself. */
    private static final class Watch {
        /** When it opened ({@link System#nanoTime()}). */
        final long openedAt;
        int inFlight;
        boolean served;
        /** The HTTP/1 connection its requests came on (null: none yet, or HTTP/2). */
        Connection http1;
        /** {@link #http1}'s bytes read when its last request ended. */
        long bytesAtRest;
        /** When the next request's first bytes were seen ({@link System#nanoTime()}); 0: none yet. */
        long waitingSince;

        Watch(long openedAt) {
            this.openedAt = openedAt;
        }
    }

    HeaderDeadline(Duration deadline, ServiceMetrics metrics, Handler next) {
        super(next);
        this.deadline = deadline;
        this.metrics = metrics;
    }

    /** The connector whose connections are watched; set before the server starts. */
    void watch(AbstractConnector watched) {
        this.connector = watched;
    }

    /** How often the connections are looked at: a quarter of the deadline, 100 ms to 1 s. */
    Duration period() {
        return Duration.ofMillis(Math.clamp(deadline.toMillis() / 4, 100, 1_000));
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        schedule();
    }

    @Override
    protected void doStop() throws Exception {
        Scheduler.Task task = sweep;
        if (task != null) {
            task.cancel();
        }
        watches.clear();
        super.doStop();
    }

    private void schedule() {
        if (connector != null && isRunning()) {
            sweep = connector.getScheduler().schedule(this::sweep, period().toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        Connection connection = request.getConnectionMetaData().getConnection();
        Watch watch = watchOf(network(connection.getEndPoint()));
        boolean http1 = request.getConnectionMetaData().getHttpVersion().getVersion() < HttpVersion.HTTP_2.getVersion();
        synchronized (watch) {
            watch.inFlight++;
            watch.served = true;
            watch.waitingSince = 0;
            watch.http1 = http1 ? connection : null;
        }
        boolean handled = false;
        try {
            handled = super.handle(request, response, new Callback.Nested(callback) {
                @Override
                public void succeeded() {
                    super.succeeded();
                    ended(watch);
                }

                @Override
                public void failed(Throwable x) {
                    super.failed(x);
                    ended(watch);
                }
            });
            return handled;
        } finally {
            if (!handled) {
                ended(watch);
            }
        }
    }

    private static void ended(Watch watch) {
        synchronized (watch) {
            watch.inFlight = Math.max(0, watch.inFlight - 1);
            if (watch.http1 != null) {
                watch.bytesAtRest = watch.http1.getBytesIn();
            }
        }
    }

    private Watch watchOf(EndPoint network) {
        return watches.computeIfAbsent(network, e -> new Watch(openedAt(e)));
    }

    /** When the connection opened, on {@link System#nanoTime()}'s scale (the end point tells it in epoch ms). */
    private static long openedAt(EndPoint endPoint) {
        long ageMillis = Math.max(0, System.currentTimeMillis() - endPoint.getCreatedTimeStamp());
        return System.nanoTime() - ageMillis * 1_000_000;
    }

    /** The network end point under TLS's (and any other wrapping). */
    private static EndPoint network(EndPoint endPoint) {
        EndPoint e = endPoint;
        while (e instanceof EndPoint.Wrapper wrapper && wrapper.unwrap() != null && wrapper.unwrap() != e) {
            e = wrapper.unwrap();
        }
        return e;
    }

    private void sweep() {
        try {
            long now = System.nanoTime();
            long limit = deadline.toNanos();
            watches.keySet().removeIf(e -> !e.isOpen());
            for (EndPoint endPoint : connector.getConnectedEndPoints()) {
                if (!endPoint.isOpen()) {
                    continue;
                }
                Watch watch = watchOf(endPoint);
                boolean late;
                synchronized (watch) {
                    if (watch.inFlight > 0) {
                        late = false;
                    } else if (!watch.served) {
                        late = now - watch.openedAt > limit;
                    } else if (watch.http1 != null) {
                        if (watch.waitingSince == 0 && watch.http1.getBytesIn() > watch.bytesAtRest) {
                            watch.waitingSince = now; // the next request has begun to arrive
                        }
                        late = watch.waitingSince != 0 && now - watch.waitingSince > limit;
                    } else {
                        late = false;
                    }
                }
                if (late) {
                    metrics.connectionClosed("header_timeout");
                    endPoint.close();
                }
            }
        } finally {
            schedule();
        }
    }
}
