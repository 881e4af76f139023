package dev.seqvfs.engine.testing;

/**
 * How many interleavings a Lincheck model-checking test explores: a base that keeps each test to a
 * few seconds in the default run, times {@code seqvfs.stress.seconds / 20} (the concurrency tier's
 * budget; 20 by default, 300 under {@code -Pstress}, so 15 times as many there).
 */
public final class LincheckBudget {
    private LincheckBudget() {}

    /** Returns {@code base} scaled by the stress budget. */
    public static int invocations(int base) {
        String s = System.getProperty("seqvfs.stress.seconds", "");
        long seconds;
        try {
            seconds = s.isBlank() ? 20 : Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            seconds = 20;
        }
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, base * Math.max(1, seconds / 20)));
    }
}
