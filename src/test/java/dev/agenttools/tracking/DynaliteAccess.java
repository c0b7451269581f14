package dev.agenttools.tracking;

import java.net.URI;
import java.nio.file.Path;

/** Lets tests in other packages start the local DynamoDB server. */
public final class DynaliteAccess implements AutoCloseable {
    private final Dynalite dynalite;

    private DynaliteAccess(Dynalite dynalite) {
        this.dynalite = dynalite;
    }

    public static DynaliteAccess start() throws Exception {
        return new DynaliteAccess(Dynalite.start());
    }

    /** A server whose tables live in {@code store}, so that they outlive a {@link #restart}. */
    public static DynaliteAccess start(Path store) throws Exception {
        return new DynaliteAccess(Dynalite.start(store));
    }

    /** Stops this server and starts another on its port and store. */
    public DynaliteAccess restart() throws Exception {
        return new DynaliteAccess(dynalite.restart());
    }

    /** Stops the server now (an outage); idempotent. */
    public void stop() {
        dynalite.stop();
    }

    public URI endpoint() {
        return dynalite.endpoint;
    }

    @Override
    public void close() {
        dynalite.close();
    }
}
