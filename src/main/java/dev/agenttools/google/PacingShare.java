package dev.agenttools.google;

/**
 * What the instances of agent-tools serving one account ask of that account's limits, so that each paces the
 * account's calls at a share of the limits that follows its demand ({@link QuotaPacer#share}) and together they stay
 * within them. One instance alone: {@link #ALONE}; several behind a load balancer: a store they share (the
 * {@code shared} package's).
 */
@FunctionalInterface
public interface PacingShare {
    /** Every account served by this instance alone. */
    PacingShare ALONE = (accountKey, api, unitsAsked) -> Demand.ALONE;

    /**
     * The demand on the account's limits at {@code api} now: this instance's, counting {@code unitsAsked} (the
     * request about to be paced), and the other instances'. Called before every Google request of the account: it
     * must answer from memory.
     *
     * @param accountKey a digest naming the account ({@link Account#shareKey}), never its address or a token
     * @param api        the API whose quota the request spends, lowercase ({@code gmail}, {@code calendar})
     */
    Demand demand(String accountKey, String api, int unitsAsked);

    /**
     * Quota units a second asked of one account's limits at one API, each instance's as it measured its own over the
     * last seconds.
     *
     * @param own            this instance's
     * @param others         the other instances' together, as they last told the store
     * @param otherInstances how many other instances ask anything of it now (0: this one alone)
     */
    record Demand(double own, double others, int otherInstances) {
        /** No other instance: the whole of the limits is this one's. */
        public static final Demand ALONE = new Demand(0, 0, 0);

        public Demand {
            own = Double.isFinite(own) ? Math.max(0, own) : 0;
            others = Double.isFinite(others) ? Math.max(0, others) : 0;
            otherInstances = Math.max(0, otherInstances);
        }
    }
}
