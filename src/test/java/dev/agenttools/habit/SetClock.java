package dev.agenttools.habit;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;

/** A clock that stays where the test puts it ({@link #now}), for the Habit tools' days and streaks. */
final class SetClock extends Clock {
    Instant now;
    private final ZoneId zone;

    SetClock(Instant now, ZoneId zone) {
        this.now = now;
        this.zone = zone;
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public Clock withZone(ZoneId z) {
        return new SetClock(now, z);
    }

    @Override
    public Instant instant() {
        return now;
    }
}
