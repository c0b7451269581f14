package dev.agenttools.google;

/**
 * How many instances of agent-tools serve one account at once, so that each paces that account's calls at its share of
 * the account's limits ({@link QuotaPacer#share}) and together they stay within them. One instance alone:
 * {@link #ALONE}; several behind a load balancer: a store they share (the {@code shared} package's).
 */
@FunctionalInterface
public interface PacingShare {
    /** Every account served by this instance alone. */
    PacingShare ALONE = accountKey -> 1;

    /**
     * Instances serving the account now, this one included (1 when unknown). Called before every Google request of the
     * account: it must answer from memory.
     *
     * @param accountKey a digest naming the account ({@link Account#shareKey}), never its address or a token
     */
    int instancesServing(String accountKey);
}
