package dev.agenttools.tracking;

import java.net.URI;

/** Lets tests in other packages start the local DynamoDB server. */
public final class DynaliteAccess implements AutoCloseable {
    private final Dynalite dynalite;

    private DynaliteAccess(Dynalite dynalite) {
        this.dynalite = dynalite;
    }

    public static DynaliteAccess start() throws Exception {
        return new DynaliteAccess(Dynalite.start());
    }

    public URI endpoint() {
        return dynalite.endpoint;
    }

    @Override
    public void close() {
        dynalite.close();
    }
}
