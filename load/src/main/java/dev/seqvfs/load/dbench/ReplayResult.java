package dev.seqvfs.load.dbench;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * The figures of one replay.
 *
 * @param target what was replayed on ({@code "SeqVFS"}, {@code "host"})
 * @param clients how many clients ran
 * @param nanos how long they ran, in nanoseconds (start of the clients to the last one's stop)
 * @param total every client's figures added up
 * @param loops how many times the clients went through the whole file, added up
 * @param walkRetries optimistic walks retried during the run (SeqVFS; 0 for the host)
 * @param refWalks walks that fell back to the locked ref-walk during the run (SeqVFS; 0 for the
 *     host)
 * @param interrupted whether the run was cut short (Ctrl-C)
 * @param cpuNanos CPU time the whole process used during the run (user + system, all threads), in
 *     nanoseconds; -1 if the JVM cannot tell. Less sensitive than throughput to other load on the
 *     machine.
 * @param warmupNanos how long the clients ran, unmeasured, before the run, in nanoseconds (0: none)
 * @param loadfileLines the lines of the loadfile replayed (one pass of one client)
 */
public record ReplayResult(
        String target,
        int clients,
        long nanos,
        ClientStats total,
        long loops,
        long walkRetries,
        long refWalks,
        boolean interrupted,
        long cpuNanos,
        long warmupNanos,
        int loadfileLines) {
    /** Returns the process's CPU time so far, in nanoseconds, or -1. */
    static long processCpuNanos() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean s
                ? s.getProcessCpuTime()
                : -1;
    }

    /** Returns the CPU time per line, in microseconds, or -1. */
    public double cpuMicrosPerOp() {
        return cpuNanos < 0 || total.ops() == 0 ? -1 : cpuNanos / 1e3 / total.ops();
    }

    /** Returns the run's length in seconds. */
    public double seconds() {
        return nanos / 1e9;
    }

    /** Returns the lines run. */
    public long ops() {
        return total.ops();
    }

    /** Returns the lines run per second. */
    public double opsPerSec() {
        return nanos == 0 ? 0 : total.ops() / seconds();
    }

    /** Returns dbench's throughput: bytes read and written per second, in MB (10^6 bytes). */
    public double mbPerSec() {
        return nanos == 0 ? 0 : total.bytes() / seconds() / 1e6;
    }

    /** Returns the warm-up's length in seconds (0: none). */
    public double warmupSeconds() {
        return warmupNanos / 1e9;
    }

    /**
     * Returns how many passes over the loadfile each client made while measured, on average: the
     * lines run over clients times the file's lines (0 for an empty file).
     */
    public double passesPerClient() {
        return loadfileLines == 0 || clients == 0
                ? 0
                : (double) total.ops() / clients / loadfileLines;
    }

    /** Returns the lines whose outcome differed from the capture. */
    public long mismatches() {
        return total.mismatches();
    }
}
