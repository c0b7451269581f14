package dev.agenttools.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time and memory of processes, read from Linux's /proc (null elsewhere, or when the process is gone). CPU
 * comes in the kernel's 10 ms ticks (USER_HZ 100): fine for a mean over tens of calls, not for one call.
 */
final class ProcStat {
    private static final long TICK_NANOS = 10_000_000;

    private ProcStat() {
    }

    /** User + system CPU of a live process so far. */
    static Long cpuNanos(long pid) {
        long[] f = statFields(pid);
        return f == null ? null : (f[0] + f[1]) * TICK_NANOS;
    }

    /** User + system CPU of the children this process has waited for (and theirs), so far: what exited processes cost. */
    static Long reapedChildrenCpuNanos() {
        long[] f = statFields(ProcessHandle.current().pid());
        return f == null ? null : (f[2] + f[3]) * TICK_NANOS;
    }

    /** The process's peak resident memory so far (VmHWM), in KiB. */
    static Long peakRssKb(long pid) {
        return statusKb(pid, "VmHWM:");
    }

    /** The process's resident memory now (VmRSS), in KiB. */
    static Long rssKb(long pid) {
        return statusKb(pid, "VmRSS:");
    }

    /** utime, stime, cutime, cstime: fields 14 to 17 of /proc/PID/stat. */
    private static long[] statFields(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // the command name (field 2) may hold spaces and parentheses: count fields after its last ')'
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12]), Long.parseLong(f[13]), Long.parseLong(f[14])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static Long statusKb(long pid, String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.substring(field.length()).strip().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone, or not Linux
        }
        return null;
    }
}
