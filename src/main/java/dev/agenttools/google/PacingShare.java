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
     * The name another instance said {@code accountKey} is known by now ({@link #moved}), as this instance's last
     * renewal of it read; null if none. Answered from memory.
     */
    default String movedTo(String accountKey) {
        return null;
    }

    /**
     * The account named {@code fromKey} (by its credential) is named {@code toKey} (by its address) from now on, as
     * this instance learned: the instances still naming it {@code fromKey} follow at their next renewal, and this
     * one's demand under {@code fromKey} is no longer counted. Never waits for the store.
     */
    default void moved(String fromKey, String toKey) {
    }

    /** Whether this store keeps a quota bucket per account that the instances book in ({@link #book}). */
    default boolean sharesBucket() {
        return false;
    }

    /**
     * Books {@code units} of the account's quota at {@code api} in a bucket that every instance serving it spends from
     * (its rate and burst: {@code bucket}), for a tool call that may start no later than {@code latestStartMillis}
     * (epoch ms): when those units are the call's, or when they would be, past that, so that the call is refused
     * before it spends any. Asked only for an account that other instances serve too ({@link Demand#otherInstances});
     * one request to the store, on the call's path, bounded in time. {@link Booking#unshared} when the store cannot
     * answer now (or shares no bucket): the call is paced at this instance's share of the limits instead.
     *
     * @param api as in {@link #demand}
     */
    default Booking book(String accountKey, String api, Bucket bucket, double units, long latestStartMillis) {
        return Booking.unshared();
    }

    /** Gives back {@code units} booked ({@link #book}) that the call did not spend; in the background, never failing. */
    default void giveBack(String accountKey, String api, Bucket bucket, double units) {
    }

    /**
     * Google refused a call of the account for its quota at {@code api}: its bucket is empty, so the shared one
     * ({@link #book}) is made empty too (what is booked from now on starts at least a full bucket's time later).
     */
    default void empty(String accountKey, String api, Bucket bucket) {
    }

    /**
     * The account known as {@code fromKey} (by its credential, before its address was known) is now known as
     * {@code toKey}: what was booked under the first name counts under the second, so that the instances, which learn
     * the address each at its own moment, do not find a full bucket under the new name. Once per account and instance.
     */
    default void carry(String fromKey, String toKey, String api) {
    }

    /** A quota bucket: its rate (units a second) and how many units it holds full. */
    record Bucket(double unitsPerSecond, double burst) {
        public Bucket {
            if (!(unitsPerSecond > 0) || !(burst > 0)) {
                throw new IllegalArgumentException("a bucket needs a positive rate and burst, got " + unitsPerSecond
                        + " and " + burst);
            }
        }
    }

    /**
     * What a booking ({@link #book}) gave: the units are the call's from {@code atMillis} (epoch ms, perhaps now or
     * before); or the call was refused, and the units would be free only at {@code atMillis}, past its latest start;
     * or the store could not answer.
     */
    record Booking(Outcome outcome, long atMillis) {
        public enum Outcome { BOOKED, REFUSED, UNSHARED }

        public static Booking booked(long atMillis) {
            return new Booking(Outcome.BOOKED, atMillis);
        }

        public static Booking refused(long freeAtMillis) {
            return new Booking(Outcome.REFUSED, freeAtMillis);
        }

        public static Booking unshared() {
            return new Booking(Outcome.UNSHARED, 0);
        }
    }

    /**
     * Quota units a second asked of one account's limits at one API, each instance's as it measured its own over the
     * last seconds.
     *
     * @param own            this instance's
     * @param others         the other instances' together, as they last told the store
     * @param otherInstances how many other instances ask anything of it now (0: this one alone)
     */
    record Demand(double own, double others, int otherInstances, boolean provisional) {
        /** No other instance: the whole of the limits is this one's. */
        public static final Demand ALONE = new Demand(0, 0, 0);

        /**
         * @param provisional the account is new here and the store has not yet said whether others serve it too:
         *                    paced as if alone, its calls book in the shared bucket ({@link #book}) meanwhile, so that
         *                    instances that start serving a user together do not each spend its whole burst
         */
        public Demand {
            own = Double.isFinite(own) ? Math.max(0, own) : 0;
            others = Double.isFinite(others) ? Math.max(0, others) : 0;
            otherInstances = Math.max(0, otherInstances);
        }

        public Demand(double own, double others, int otherInstances) {
            this(own, others, otherInstances, false);
        }

        /** Whether calls book in the shared bucket: others serve the account too, or may. */
        public boolean books() {
            return otherInstances > 0 || provisional;
        }
    }
}
