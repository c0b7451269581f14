package dev.agenttools.tool;

import java.util.Set;

/**
 * The one fallback router all modes share: a call that fails for a reason a surer path may not hit (upstream
 * errors, rate limits, internal errors) is run again the tool's surer way ({@link Tool#fallback}), within what is
 * left of the same deadline; the answer then says {@code backend: fallback}. Errors the caller must fix (bad params,
 * unknown ids, sign-in) are not rerun: they would fail the same way; nor is a failure in what the upstream sends that
 * every strategy meets alike ({@link ToolException#sameOnRerun}: an unreadable answer, a page token sent twice). Nor is a call with too little time left: the
 * rerun could only end in a deadline error that hides the real one.
 */
final class FallbackInterceptor implements ToolInterceptor {
    /** Not DEADLINE: the caller's time is spent. */
    private static final Set<ToolException.Kind> FALL_BACK_ON = Set.of(ToolException.Kind.UPSTREAM,
            ToolException.Kind.RATE_LIMITED, ToolException.Kind.INTERNAL);
    /** The share of the deadline that must be left for a rerun to be worth starting. */
    static final double MIN_SHARE_LEFT = 0.25;

    @Override
    public ToolResult intercept(ToolCall call, Tool next) throws InterruptedException {
        try {
            return next.call(call);
        } catch (ToolException e) {
            if (!FALL_BACK_ON.contains(e.kind()) || e.sameOnRerun()) {
                throw e;
            }
            ToolCall surer = next.fallback(call);
            Deadline deadline = call.deadline();
            if (surer == null || deadline.remainingNanos() < deadline.budgetNanos() * MIN_SHARE_LEFT) {
                throw e;
            }
            Diagnostics.warn(call.tool() + " failed on the fast path (" + e.kind().code()
                    + "); falling back with " + deadline.remainingNanos() / 1_000_000 + " ms left");
            ToolResult slow = next.call(surer.withDeadline(deadline));
            return new ToolResult(slow.data(), Backend.FALLBACK, slow.items(), slow.duration());
        }
    }
}
