package dev.agenttools.tool;

/**
 * Told of every call the registry finished, after it is answered (call tracking). A listener cannot change the
 * outcome, and what it throws is dropped: watching a call must never fail it.
 */
@FunctionalInterface
public interface CallListener {
    void completed(CallOutcome outcome);
}
